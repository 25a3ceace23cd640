"""The words of a run's one-line outcome (flow.views.outcome), in Chinese and English.

Each clause says one thing a hop shows, and ends with the hop's number ({at}); flow.views.outcome picks the clauses
from the trace and joins them. Nothing here is a figure or a name: those come from the hops.
"""

from __future__ import annotations

from flow.text.apis import WORDS
from flow.text.names import Lang

OUTCOME_TEXT: dict[str, dict[Lang, str]] = {
    "at": {"zh": "（第 {seq} 跳）", "en": " (hop {seq})"},
    "at_many": {"zh": "（第 {seqs} 跳）", "en": " (hops {seqs})"},
    "and": {"zh": "、", "en": " and "},
    "more": {"zh": "等 {n} 个调用", "en": " and {n} more"},
    # the model's decisions
    "called": {"zh": "模型调用了 {calls}{at}", "en": "the model called {calls}{at}"},
    "retried": {"zh": "模型重新调用了 {calls}{at}", "en": "the model tried again with {calls}{at}"},
    "kept_asking": {
        "zh": "模型连续 {n} 次回复都要求调用工具{at}",
        "en": "the model asked for tools in {n} replies in a row{at}",
    },
    "not_json": {
        "zh": "模型给 {name} 的参数不是合法的 JSON{at}",
        "en": "the model sent arguments for {name} that are not valid JSON{at}",
    },
    "not_object": {
        "zh": "模型给 {name} 的参数不是一个 JSON 对象{at}",
        "en": "the model sent arguments for {name} that are not a JSON object{at}",
    },
    "off_schema": {
        "zh": "模型给 {name} 的参数不符合它的 schema{at}",
        "en": "the model sent arguments for {name} that do not match its schema{at}",
    },
    "not_offered": {
        "zh": "模型要求调用 {name}，但请求里没有提供这个工具{at}",
        "en": "the model asked for {name}, a tool it was not offered{at}",
    },
    # what became of a call
    "refused": {
        "zh": "应用没有调用工具，把错误作为{result}交回给模型{at}",
        "en": "the app called nothing and sent the error back to the model as {result}{at}",
    },
    # how each model API carries a tool's result back, as "refused" names it
    **{f"result_{api}": words.refused_result for api, words in WORDS.items()},
    "refused_kept": {"zh": "应用没有调用工具{at}", "en": "the app called nothing{at}"},
    "ran_server": {"zh": "MCP 服务器运行了 {name}{at}", "en": "the MCP server ran {name}{at}"},
    "ran_server_many": {"zh": "MCP 服务器运行了这 {n} 个调用{at}", "en": "the MCP server ran the {n} calls{at}"},
    "ran_app": {"zh": "应用在自己的进程里运行了 {name}{at}", "en": "the app ran {name} in its own process{at}"},
    "ran_app_many": {
        "zh": "应用在自己的进程里运行了这 {n} 个调用{at}",
        "en": "the app ran the {n} calls in its own process{at}",
    },
    "answered_call": {"zh": "服务器返回了 {name} 的结果{at}", "en": "the server answered {name}{at}"},
    "answered_call_many": {"zh": "服务器返回了这 {n} 个调用的结果{at}", "en": "the server answered the {n} calls{at}"},
    "rpc_error": {
        "zh": "服务器回了 JSON-RPC 错误 {code}{at}",
        "en": "the server answered with JSON-RPC error {code}{at}",
    },
    "app_error": {
        "zh": "应用里没有这个函数，返回了一个错误{at}",
        "en": "the app has no function by that name and answered with an error{at}",
    },
    "raised_server": {
        "zh": "{call} 在工具里抛出了 {error}，服务器把它作为 isError: true 的结果返回{at}",
        "en": "{call} raised {error} in the tool, and the server returned a result with isError: true{at}",
    },
    "raised_app": {
        "zh": "{call} 抛出了 {error}，应用把错误文字作为结果{at}",
        "en": "{call} raised {error}, and the app took the error text as its result{at}",
    },
    "error_result": {
        "zh": "{call} 的结果是一个错误（isError: true）{at}",
        "en": "{call} came back as an error (isError: true){at}",
    },
    # hosted MCP: the provider runs the tool loop, and reports what its MCP client did
    "hosted_called": {
        "zh": "服务商的 MCP 客户端调用了 {calls}，据服务商报告{at}",
        "en": "the provider's MCP client called {calls}, by the provider's report{at}",
    },
    "hosted_called_seen": {
        "zh": "服务商的 MCP 客户端调用了 {calls}，记录器观测到了这次调用{at}",
        "en": "the provider's MCP client called {calls}, and the recorder saw the call{at}",
    },
    "hosted_error_seen": {
        "zh": "{call} 的结果是一个错误（isError: true）{at}",
        "en": "{call} came back as an error (isError: true){at}",
    },
    "hosted_reported": {"zh": "服务商的回复里也作了同样的报告{at}", "en": "the provider's reply reported the same{at}"},
    "hosted_unseen": {
        "zh": "这次调用没有被观测到，只有服务商的报告",
        "en": "no frame of that call was seen: only the report says it happened",
    },
    "hosted_asked": {
        "zh": "服务商请应用批准调用 {call}{at}",
        "en": "the provider asked the app to approve {call}{at}",
    },
    "hosted_approved": {"zh": "应用批准了{at}", "en": "the app approved it{at}"},
    "hosted_denied": {"zh": "应用拒绝了 {call}{at}", "en": "the app denied {call}{at}"},
    "hosted_denied_none": {
        "zh": "应用拒绝了，工具没有被调用{at}",
        "en": "the app denied it, and no tool was called{at}",
    },
    "hosted_error": {
        "zh": "据服务商报告，{call} 的结果是一个错误（isError: true）{at}",
        "en": "{call} came back as an error (isError: true), by the provider's report{at}",
    },
    "hosted_mismatch": {
        "zh": "服务商的报告与观测到的帧不符：{what}{at}",
        "en": "the provider's report differs from the frame seen: {what}{at}",
    },
    "unread_report": {
        "zh": "服务商用本工具读不懂的形式报告了它的工具调用（{types}），所以这里数不出调用了什么{at}",
        "en": "the provider reported its tool use in a form this tool does not read ({types}), so what it called "
        "is not counted here{at}",
    },
    # the server asks back
    "asked_user": {"zh": "服务器向用户提问{at}", "en": "the server asked the user{at}"},
    "asked_approval": {
        "zh": "宿主先问用户，能不能把服务器的 sampling 请求发给模型{at}",
        "en": "the host asked the user whether the server's sampling request may go to the model{at}",
    },
    "approved": {"zh": "用户批准了{at}", "en": "the user approved it{at}"},
    "denied": {"zh": "用户拒绝了，模型没有被调用{at}", "en": "the user denied it, and no model was called{at}"},
    "user_accept": {"zh": "用户回答了 {values}{at}", "en": "the user answered {values}{at}"},
    "user_accept_plain": {"zh": "用户同意了{at}", "en": "the user agreed{at}"},
    "user_decline": {"zh": "用户拒绝回答{at}", "en": "the user declined{at}"},
    "user_cancel": {"zh": "用户取消了提问{at}", "en": "the user cancelled{at}"},
    "user_timed_out": {"zh": "没有人回答，提问被取消{at}", "en": "nobody answered, so the question was cancelled{at}"},
    "asked_model": {"zh": "服务器请宿主的模型替它写{at}", "en": "the server asked the host's model{at}"},
    "asked_model_again": {
        "zh": "服务器自己运行了工具，带着结果再问宿主的模型{at}",
        "en": "the server ran it itself and asked the host's model again with the result{at}",
    },
    "sampled_calls": {
        "zh": "宿主的模型要服务器运行它自己的工具 {calls}{at}",
        "en": "the host's model asked the server to run its own tool {calls}{at}",
    },
    "sampled_unoffered": {
        "zh": "宿主的模型给服务器的回答是调用 {calls}，但服务器的请求没有提供这个工具{at}",
        "en": "the host's model answered the server with a call of {calls}, a tool the server's request did not "
        "offer{at}",
    },
    "asked_roots": {
        "zh": "服务器询问客户端共享了哪些文件夹（roots）{at}",
        "en": "the server asked which folders the client shares (roots){at}",
    },
    # the end
    "answered": {"zh": "模型给出了回答{at}", "en": "the model answered{at}"},
    "answered_after_error": {"zh": "模型根据这个错误作答{at}", "en": "the model answered from the error{at}"},
    "answered_empty": {"zh": "模型的回答是空的{at}", "en": "the model's answer was empty{at}"},
    "answered_no_tool": {
        "zh": "模型没有调用工具，直接回答了{at}",
        "en": "the model answered without calling a tool{at}",
    },
    "stopped": {"zh": "运行中止{at}：{error}", "en": "the run stopped{at}: {error}"},
    "stopped_prefix": {"zh": "已停止：", "en": "stopped: "},  # how the round limit's error line begins
    "no_answer": {"zh": "记录里没有交给用户的回答{at}", "en": "no answer to the user is recorded{at}"},
    "unknown_end": {
        "zh": "模型的最后一个回复已返回{at}；应用有没有把回答展示给用户、最后是否正常结束，记录里没有（没有退出码）",
        "en": "the model's last reply came back{at}; whether the app showed the user an answer, and how it ended, "
        "is not recorded (no exit code)",
    },
    "empty_trace": {"zh": "这份记录里没有任何一跳", "en": "this trace holds no hops"},
}
