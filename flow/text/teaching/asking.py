"""The teaching texts of a server that asks: its questions to the host's model (sampling), to the user
(elicitation) and for the client's folders (roots), in either protocol era, and the host's answers."""

from __future__ import annotations

from flow.text.names import Lang

ASKING_TEXTS: dict[str, dict[Lang, str]] = {
    "user.asked": {
        "en": 'The MCP server needs something only the user knows, so it asks (elicitation): "{message}". The host '
        "shows the question and the form the server described; the model is not asked and sees none of it.",
        "zh": "MCP 服务器需要只有用户才知道的信息，于是发问（elicitation）：“{message}”。宿主把问题和服务器描述的表单展示给用户；"
        "模型不参与，也看不到这些内容。",
    },
    "user.asked.url": {
        "en": "The MCP server asks the user to open {url} (URL-mode elicitation). What happens there, a sign-in or a "
        "payment, stays outside the MCP client and never passes through the host or the model.",
        "zh": "MCP 服务器请用户打开 {url}（URL 模式的 elicitation）。在那里发生的事，比如登录或付款，都在 MCP 客户端之外完成，"
        "不经过宿主，也不经过模型。",
    },
    "user.answered.accept": {
        "en": "The user answers the server's form: accept, with {content}. The host sends these values back to the "
        "server as the answer to its question; the server checks them against the form it sent.",
        "zh": "用户填好了服务器的表单：接受（accept），值为 {content}。宿主把这些值作为对那个问题的回答发回服务器，服务器再按它发出的表单检查。",
    },
    "user.answered.accept.url": {
        "en": "The user agrees to open the page (accept). Nothing is filled in here: a URL-mode answer carries no "
        "content, only the user's choice; what the user then does on that page never comes back through the host.",
        "zh": "用户同意打开那个页面（accept）。这里什么也不用填：URL 模式的回答不带 content，只有用户的选择；"
        "用户随后在那个页面上做的事，不会经由宿主传回来。",
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
    "user.asked.sampling": {
        "en": "The server's sampling request would spend the host's model ({messages} message(s), at most "
        "{max_tokens} tokens), so the host shows it to the user first: the spec wants a human in the loop, able to "
        "see each request and deny it. Nothing is sent to the model until the user approves; the user may also edit "
        "the messages or maxTokens.",
        "zh": "服务器的 sampling 请求会花宿主的模型额度（{messages} 条消息，最多 {max_tokens} 个 token），所以宿主先拿给用户看："
        "MCP 规范希望有人参与其中，能看到并拒绝每个请求。用户批准之前，什么都不会发给模型；"
        "用户也可以先改消息或 maxTokens。",
    },
    "user.answered.accept.sampling": {
        "en": "The user approves the sampling request (with any edits shown here). Only now does the host send it to "
        "its model, on the server's behalf.",
        "zh": "用户批准了这个 sampling 请求（如有修改，这里会列出）。宿主这时才替服务器把请求发给自己的模型。",
    },
    "user.answered.deny.sampling": {
        "en": "The user denies the sampling request. The model is not called: the host answers the server with a "
        "JSON-RPC error (code -1, User rejected sampling request), and the server must go on without the model's text.",
        "zh": "用户拒绝了这个 sampling 请求。模型不会被调用：宿主用 JSON-RPC 错误回答服务器（代码 -1，错误信息说用户拒绝了"
        "这个请求），服务器只能在没有模型回答的情况下继续。",
    },
    "user.answered.timeout": {
        "en": "Nobody answered within {seconds} s. The host cancels the question (cancel) rather than let the call "
        "wait forever.",
        "zh": "{seconds} 秒内没有人回答。宿主就取消了这个问题（cancel），不让这次调用一直等下去。",
    },
}


# The server's requests and the client's answers, by era: in 2025-11-25 standalone JSON-RPC requests from the server
# over the session, answered by the client under the same id; in 2026-07-28 input requests inside an input-required
# result, answered in the retried call (mcp_types InputRequiredResult, mcp/client/_input_required.py).
ASKING_TEXTS.update(
    {
        "asks.sampling": {
            "en": "Now the MCP server sends the client a request of its own over the session, sampling/createMessage "
            "(id {id}): it borrows the host's model for {messages} message(s), at most {max_tokens} tokens "
            "(maxTokens). The host decides whether and how to run it: it may show the request to the user, change "
            "it or refuse, and it picks the model; the server never holds an API key.",
            "zh": "这次是 MCP 服务器通过会话反过来向客户端发请求：sampling/createMessage（id 为 {id}），借用宿主的模型，"
            "带 {messages} 条消息，最多生成 {max_tokens} 个词元（maxTokens）。要不要做、怎么做由宿主决定："
            "它可以先给用户看、修改或拒绝这个请求，模型也由它挑选；服务器始终拿不到 API 密钥。",
        },
        "asks.elicit": {
            "en": "Now the MCP server asks the client to put a question to the user, elicitation/create (id {id}): "
            '"{message}", with a form whose fields are {fields} (requestedSchema). Only the host can reach the '
            "user, so the server asks through the client and waits for an answer with the same id.",
            "zh": "这次是 MCP 服务器请客户端替它向用户提问：elicitation/create（id 为 {id}），问题是“{message}”，"
            "附带一张表单，字段为 {fields}（requestedSchema）。只有宿主接触得到用户，所以服务器只能经由客户端发问，"
            "再等待带着同一个 id 的回答。",
        },
        "asks.elicit.url": {
            "en": "The MCP server sends elicitation/create in URL mode (id {id}): it asks the user to open {url}. "
            "What the user types there never passes through the MCP client; the answer only says whether the user "
            "agreed to go.",
            "zh": "MCP 服务器以 URL 模式发送 elicitation/create（id 为 {id}），请用户打开 {url}。用户在那个页面上输入的内容"
            "不经过 MCP 客户端；回答里只说明用户是否同意前往。",
        },
        "asks.roots": {
            "en": "Now the MCP server asks the client which folders it may work in: roots/list (id {id}), with no "
            "parameters. The answer lists the roots the host chose to share, and only those; roots, like sampling, "
            "are deprecated in 2026-07-28.",
            "zh": "这次是 MCP 服务器问客户端它可以在哪些目录里工作：roots/list（id 为 {id}），不带参数。回答里只列出宿主"
            "愿意共享的根目录；和 sampling 一样，roots 在 2026-07-28 中已被标为弃用。",
        },
        "asks.other": {
            "en": "The MCP server sends the client a request of its own, {method} (id {id}): in 2025-11-25 the "
            "session runs both ways. The client answers it under the same id, while the server's own answer to "
            "the client waits.",
            "zh": "MCP 服务器反过来给客户端发了一个请求 {method}（id 为 {id}）：在 2025-11-25 中会话是双向的。客户端用"
            "同一个 id 回答它，而服务器欠客户端的回答还在等待。",
        },
        "answers.sampling": {
            "en": "The client answers sampling/createMessage (id {id}) with the model's message: “{text}” (model "
            "{model}, stopReason {stop}). The server gets only this message, never the model API's response or "
            "the key that paid for it.",
            "zh": "客户端回答 sampling/createMessage（id 为 {id}），交回模型写出的消息：“{text}”（model 为 {model}，"
            "stopReason 为 {stop}）。服务器只拿到这条消息，拿不到模型接口的原始响应，也拿不到付费用的 API 密钥。",
        },
        "asks.sampling.tools": {
            "en": "Now the MCP server sends the client a request of its own, sampling/createMessage (id {id}), with "
            "tools of its own ({tools}): it borrows the host's model, at most {max_tokens} tokens, and lets that "
            "model ask for the server's tools. The server may send tools only because the client declared "
            "sampling.tools in its capabilities; it runs them itself when the model asks.",
            "zh": "这次是 MCP 服务器反过来向客户端发请求：sampling/createMessage（id 为 {id}），还带上它自己的工具"
            "（{tools}）：它借用宿主的模型，最多 {max_tokens} 个词元，并允许这个模型要求调用服务器的工具。服务器能带工具，"
            "是因为客户端在能力里声明了 sampling.tools；模型要用时，由服务器自己运行。",
        },
        "answers.sampling.tool_use": {
            "en": "The client answers sampling/createMessage (id {id}) with the model's tool_use: {calls} "
            "(stopReason toolUse). The host has not run it: the server runs its own tool and sends the result in "
            "a new sampling request, with the model's tool_use and a tool_result, until the model answers in text.",
            "zh": "客户端回答 sampling/createMessage（id 为 {id}），交回模型的 tool_use：{calls}（stopReason 为 toolUse）。"
            "宿主并没有运行它：服务器自己运行工具，再发一个新的 sampling 请求，带上模型的 tool_use 和 tool_result，"
            "直到模型用文字作答。",
        },
        "answers.elicit.accept": {
            "en": "The client answers elicitation/create (id {id}) with what the user chose: action accept, content "
            "{content}. The server goes on with the value the user gave, which it should still check.",
            "zh": "客户端回答 elicitation/create（id 为 {id}），交回用户的选择：action 为 accept，content 为 {content}。"
            "服务器拿着用户给的值继续工作，但仍应自己检查一遍。",
        },
        "answers.elicit.accept.url": {
            "en": "The client answers elicitation/create (id {id}) with action accept and no content: in URL mode the "
            "answer says only that the user agreed to open the page. Whatever the user does there reaches the server, "
            "if at all, through that page, never through this client.",
            "zh": "客户端回答 elicitation/create（id 为 {id}），action 为 accept，没有 content：URL 模式的回答只说明用户同意"
            "打开那个页面。用户在那里做的事如果要让服务器知道，也是经由那个页面，而不是经由这个客户端。",
        },
        "answers.elicit.decline": {
            "en": "The client answers elicitation/create (id {id}) with action decline: the user said no. The "
            "server gets no content and must carry on without it, or end the call with a message.",
            "zh": "客户端回答 elicitation/create（id 为 {id}），action 为 decline：用户拒绝了。服务器拿不到 content，"
            "只能不靠它继续，或者带一句说明结束这次调用。",
        },
        "answers.elicit.cancel": {
            "en": "The client answers elicitation/create (id {id}) with action cancel: the question was closed "
            "without a choice. The server gets no content; it may ask again later or give up.",
            "zh": "客户端回答 elicitation/create（id 为 {id}），action 为 cancel：问题被关掉了，用户没有作出选择。"
            "服务器拿不到 content，可以稍后再问，也可以放弃。",
        },
        "answers.roots": {
            "en": "The client answers roots/list (id {id}) with {count} root(s): {uris}. The server should read only "
            "inside these, but that is the server's own promise: MCP does not enforce it, and a server that ignores "
            "the list can still open any file its process may read.",
            "zh": "客户端回答 roots/list（id 为 {id}），给出 {count} 个根目录：{uris}。服务器应当只在这些目录里读取，"
            "但这只是服务器自己的承诺：MCP 并不强制，不理会这份清单的服务器照样能打开它的进程有权读取的任何文件。",
        },
        "input_required": {
            "en": "The server answers tools/call (id {id}) with resultType input_required instead of a result: it "
            "first needs {methods}, in inputRequests. Protocol 2026-07-28 has no session over which a server "
            "could send the client requests of its own, so it puts them in its answer, with a requestState the "
            "client must send back unchanged; the call is not finished.",
            "zh": "服务器对 tools/call（id 为 {id}）的回答不是结果，而是 resultType 为 input_required：它要先拿到 "
            "{methods}，写在 inputRequests 里。2026-07-28 协议没有会话，服务器无法在调用中途向客户端发请求，"
            "只好把要问的事放进回答，再附上一个客户端必须原样带回的 requestState；这次调用还没有完成。",
        },
        "call.retry": {
            "en": "Round {round} of the same call: tools/call {name} again, under a new JSON-RPC id {id} (round 1 "
            "had id {first_id}). It carries the host's answers in inputResponses ({keys}) and echoes requestState "
            "unchanged: the state links the rounds, not the id, and what the server learnt so far travels in it.",
            "zh": "同一次调用的第 {round} 轮：再次发送 tools/call {name}，用的是新的 JSON-RPC id {id}（第 1 轮的 id 是 "
            "{first_id}）。它在 inputResponses 里带上宿主的回答（{keys}），并原样带回 requestState：把几轮连起来的是"
            "这个状态而不是 id，服务器目前知道的东西也都放在状态里。",
        },
        "call.retry.unpaired": {
            "en": "tools/call {name} again (id {id}), with inputResponses ({keys}) and a requestState, but no "
            "input-required result in this recording gave that state, or more than one did. The trace leaves it "
            "unpaired rather than guess which call it continues.",
            "zh": "再次发送 tools/call {name}（id 为 {id}），带着 inputResponses（{keys}）和一个 requestState，"
            "但这份记录里没有哪个 input_required 结果给出过这个状态，或者不止一个给出过。记录把它标为无法配对，而不去猜"
            "它接的是哪次调用。",
        },
        "call.retry.plain": {
            "en": "tools/call {name} again (id {id}), carrying inputResponses ({keys}) and the requestState an "
            "input-required result gave. A retry is a new request with a new id; only that state links it to the "
            "round before.",
            "zh": "再次发送 tools/call {name}（id 为 {id}），带着 inputResponses（{keys}）和某个 input_required 结果"
            "给出的 requestState。重试是一个带新 id 的新请求，只有这个状态把它和上一轮连起来。",
        },
        "ask.for_server": {
            "en": "The host's MCP client runs the server's {method} on the host's own model API: {messages} "
            "message(s), all taken from the server's request, and {field} {limit} as the server asked. The key and "
            "the bill are the host's, and the app's conversation with the user is not sent.",
            "zh": "宿主的 MCP 客户端用宿主自己的模型接口执行服务器的 {method}：请求里的 {messages} 条消息全部取自服务器的"
            "请求，{field} 为服务器要求的 {limit}。API 密钥和费用都是宿主的，应用与用户的对话并没有发出去。",
        },
        "ask.for_server.tools": {
            "en": "The host's MCP client runs the server's {method} on the host's own model API: {messages} "
            "message(s) from the server's request, and the server's own tools ({tools}) as the model API's tools "
            "(sampling with tools, which the client allowed by declaring sampling.tools). The model may ask for "
            "them, but nobody on the host side runs them: they are the server's.",
            "zh": "宿主的 MCP 客户端用宿主自己的模型接口执行服务器的 {method}：{messages} 条消息取自服务器的请求，"
            "服务器自己的工具（{tools}）作为模型接口的工具一起发出（带工具的 sampling，客户端声明了 sampling.tools "
            "才允许）。模型可以要求调用它们，但宿主这边谁也不会去运行：这些工具是服务器的。",
        },
        "answer.for_server.calls": {
            "en": "The host's model asks for the server's tool: {calls}. The MCP client does not run it; it hands "
            "it to the server as tool_use in its answer to {method}, and the server runs its own tool and asks the "
            "model again with the result. The app's model sees none of this.",
            "zh": "宿主的模型要求调用服务器的工具：{calls}。MCP 客户端并不运行它，而是把它作为 tool_use 放进对 {method} "
            "的回答交给服务器；服务器自己运行工具，再带着结果请模型接着写。应用这边的模型完全看不到这些。",
        },
        "answer.for_server": {
            "en": "The model's answer comes back to the host's MCP client, not into the app's conversation: “{text}”. "
            "The client hands it to the server as the answer to its {method}; the app's model sees it only if "
            "the server puts it into the tool's result.",
            "zh": "模型的回答回到宿主的 MCP 客户端，而不是进入应用的对话：“{text}”。客户端把它交给服务器，作为 {method} "
            "的回答；只有服务器把它写进工具结果，应用这边的模型才会看到。",
        },
        "initialize.request.host": {
            "en": "The client opens the session with initialize (id {id}, protocol {version}, client {client}). In "
            "capabilities it also says what its host will do for a server: {capabilities}. Apart from ping, which needs "
            "no capability, a server may send back only the requests these name ({requests}).",
            "zh": "客户端用 initialize 打开会话（id 为 {id}，协议 {version}，客户端 {client}）。它还在 capabilities 里"
            "说明宿主愿意为服务器做什么：{capabilities}。除了不需要任何能力的 ping，服务器只能反过来发这些能力对应的请求（{requests}）。",
        },
        "discover.request.host": {
            "en": "With server/discover (id {id}) the client asks what the server offers; in _meta, under "
            "io.modelcontextprotocol/clientCapabilities, it says what its host will answer: {capabilities}. "
            "Protocol {version} has no session to remember this, so every request carries these capabilities "
            "again, and a server asks only for what they name, inside an input-required result.",
            "zh": "客户端用 server/discover（id 为 {id}）询问服务器提供什么；它在 _meta 的 "
            "io.modelcontextprotocol/clientCapabilities 里说明宿主愿意回答哪些请求：{capabilities}。{version} "
            "协议没有会话来记住这些，所以每个请求都再带一遍，服务器也只能在 input_required 结果里请求这些能力范围内的事。",
        },
    }
)
