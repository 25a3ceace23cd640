"""The teaching texts of a server that asks: its questions to the host's model (sampling), to the user
(elicitation) and for the client's folders (roots), in either protocol era, and the host's answers."""

from __future__ import annotations

from flow.text.names import Lang

ASKING_TEXTS: dict[str, dict[Lang, str]] = {
    "user.asked": {
        "en": 'The MCP server needs something only the user knows, so it asks (elicitation): "{message}". The host '
        "shows the question and the form the server described; the model is not asked and sees none of it.",
        "zh": "MCP 服务器需要只有用户才知道的信息，于是发问（elicitation）：“{message}”。主机把问题和服务器描述的表单展示给用户；"
        "模型不参与，也看不到这些内容。",
    },
    "user.asked.url": {
        "en": "The MCP server asks the user to open {url} (URL-mode elicitation): what happens there, a sign-in or a "
        "payment, stays outside the MCP client and never passes through the host or the model.",
        "zh": "MCP 服务器请用户打开 {url}（URL 模式的 elicitation）：在那里发生的事，比如登录或付款，都在 MCP 客户端之外完成，"
        "不经过主机，也不经过模型。",
    },
    "user.answered.accept": {
        "en": "The user answers the server's form: accept, with {content}. The host sends these values back to the "
        "server as the answer to its question; the server checks them against the form it sent.",
        "zh": "用户填好了服务器的表单：接受（accept），值为 {content}。主机把这些值作为对那个问题的回答发回服务器，服务器再按它发出的表单检查。",
    },
    "user.answered.decline": {
        "en": "The user declines to answer (decline). The server is told so and must carry on without the value, "
        "or say it cannot.",
        "zh": "用户拒绝回答（decline）。服务器会收到这个结果，只能在没有这个值的情况下继续，或者说明它做不到。",
    },
    "user.answered.cancel": {
        "en": "The user dismisses the question without choosing (cancel). The server gets no value and is told the "
        "question was closed, not answered.",
        "zh": "用户没有作答就关掉了问题（cancel）。服务器拿不到值，只知道问题被关掉了，而不是被回答了。",
    },
    "user.answered.timeout": {
        "en": "Nobody answered within {seconds} s, so the host cancels the question (cancel) rather than let the "
        "call wait forever.",
        "zh": "{seconds} 秒内没有人回答，主机就取消了这个问题（cancel），不让这次调用一直等下去。",
    },
}
