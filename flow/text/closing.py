"""The words of the closing view (after a trace's last hop) and of Compare's sentence, in Chinese and English.

flow.views.closing and flow.views.compare fill them with figures computed from the traces; nothing here is a
number. The facts follow article 000 (its three questions) and article 004 (what tool definitions cost, when to
choose MCP); where an article is wrong the text says so: the host app, not MCP, translates between MCP and
function calling, and MCP does not shrink what the model is sent.
"""

from __future__ import annotations

from flow.text.apis import WORDS
from flow.text.names import Lang

CLOSING_TEXT: dict[str, dict[Lang, str]] = {
    "title": {"zh": "这次运行说明了什么", "en": "What this run shows"},
    "stopped": {
        "zh": "这次运行在第 {seq} 跳（{where}）中止，没有得到回答：{error}。下面只写这之前的跳能说明的事。",
        "en": "This run stopped at hop {seq} ({where}) with no answer: {error}. What follows is only what the hops "
        "before it show.",
    },
    "no_answer": {
        "zh": "这次运行没有把回答交给用户（最后一跳是第 {seq} 跳）。下面只写这些跳能说明的事。",
        "en": "This run gave the user no answer (its last hop is hop {seq}). What follows is only what its hops show.",
    },
    "message": {"zh": "消息 {n}", "en": "message {n}"},
    "phase_zero": {"zh": "阶段零", "en": "phase zero"},
    "wire": {"zh": "线路帧", "en": "a wire frame"},
    # --- article 000's three questions --------------------------------------------------------------------------
    "questions": {
        "zh": "文章的三个问题，用这次运行回答",
        "en": "The article's three questions, answered from this run",
    },
    "q_fc": {"zh": "函数调用在哪一步？", "en": "Where is function calling?"},
    "q_mcp": {"zh": "MCP 做了什么？", "en": "What did MCP do?"},
    "q_tool": {"zh": "工具是谁执行的？", "en": "Who ran the tool?"},
    "fc_decided": {
        "zh": "消息 4（{hops}）：模型回复 {w_calls}：{calls}，{w_finish} 为 {finish}。这只是意图，模型什么也没执行。"
        "它能这样回复，是因为消息 3（第 {request} 跳）在 tools 里带上了 {n_tools} 个工具定义。",
        "en": "Message 4 ({hops}): the model replied with {w_calls} {calls}, {w_finish} {finish}. That is an "
        "intent only: the model ran nothing. It could, because message 3 (hop {request}) carried {n_tools} tool "
        "definitions in tools.",
    },
    "fc_none": {
        "zh": "这次模型没有要求调用任何工具：{requests} 个请求都带着工具定义，模型直接回答了。",
        "en": "The model asked for no tool in this run: its {requests} requests carried the tool definitions and "
        "it answered without them.",
    },
    "fc_none_one": {
        "zh": "这次模型没有要求调用任何工具：唯一的请求带着工具定义，模型直接回答了。",
        "en": "The model asked for no tool in this run: its one request carried the tool definitions and it answered "
        "without them.",
    },
    "fc_none_some": {
        "zh": "这次模型没有要求调用任何工具：{requests} 个请求里带着工具定义的那些，模型也直接回答了。",
        "en": "The model asked for no tool in this run: where its {requests} requests carried tool definitions, it "
        "answered without them.",
    },
    "fc_hosted": {
        "zh": "消息 4 发生在模型服务商那里，应用看不到：服务商的模型选了 {calls}，服务商的 MCP 客户端去调用它；"
        "这些是响应里的报告（{hops}）。应用的请求（第 {request} 跳）只写了 MCP 服务器 {servers}，没有函数定义，"
        "所以回到应用的响应里没有要应用去执行的 {w_calls}。",
        "en": "Message 4 happened at the model provider, out of the app's sight: the provider's model chose {calls}, "
        "and the provider's MCP client called it; the response reports this ({hops}). The app's request (hop "
        "{request}) named the MCP server {servers} and no function tools, so no {w_calls} came back for the app "
        "to act on.",
    },
    "approval_yes": {
        "zh": "调用之前，服务商先请应用批准 {call}（第 {seq} 跳，mcp_approval_request），应用在第 {answered} 跳批准了"
        "（mcp_approval_response）。",
        "en": "Before calling, the provider asked the app to approve {call} (hop {seq}, an mcp_approval_request), "
        "and the app approved it at hop {answered} (an mcp_approval_response).",
    },
    "approval_no": {
        "zh": "服务商先请应用批准 {call}（第 {seq} 跳），应用在第 {answered} 跳拒绝了。",
        "en": "The provider asked the app to approve {call} (hop {seq}), and the app declined at hop {answered}.",
    },
    "approval_none": {
        "zh": "服务商请应用批准 {call}（第 {seq} 跳），这次记录里没有应用的答复。",
        "en": "The provider asked the app to approve {call} (hop {seq}); no answer of the app's is recorded.",
    },
    "fc_hosted_none": {
        "zh": "服务商没有报告任何工具调用：应用的请求（第 {request} 跳）写了 MCP 服务器 {servers}，服务商的模型没有用它的工具就"
        "回答了。",
        "en": "The provider reports no tool call: the app's request (hop {request}) named the MCP server {servers}, "
        "and the provider's model answered without its tools.",
    },
    "fc_no_reply": {
        "zh": "这次运行没有记录到模型的决策：它在模型回复 {w_calls} 之前就中止了。",
        "en": "No decision of the model is recorded: the run stopped before the model replied with {w_calls}.",
    },
    "mcp_did": {
        "zh": "MCP 客户端和服务器之间走了 {frames} 个 JSON-RPC 帧：{methods}。{setup}",
        "en": "The MCP client and server exchanged {frames} JSON-RPC frames: {methods}. {setup}",
    },
    "setup_handshake": {
        "zh": "initialize 和 notifications/initialized 建立会话，每个会话一次。",
        "en": "initialize and notifications/initialized set up the session, once per session.",
    },
    "setup_discover": {
        "zh": "server/discover 只是询问服务器支持的版本和能力，不建立会话（2026-07-28 没有会话），客户端也可以不发它。",
        "en": "server/discover only asks which versions and capabilities the server has; it sets up no session "
        "(2026-07-28 has none), and a client may skip it.",
    },
    "server_sent": {
        "zh": "服务器也主动向客户端发出了：{methods}。",
        "en": "The server sent the client its own: {methods}.",
    },
    "mcp_hosted_seen": {
        "zh": "和服务器说 MCP 的是模型服务商的 MCP 客户端，不是应用：记录器在服务器一侧看到 {frames} 个 JSON-RPC 帧"
        "（{methods}），它们都不经过应用。",
        "en": "The model provider's MCP client, not the app, spoke MCP to the server: the recorder saw {frames} "
        "JSON-RPC frames at the server ({methods}), none of which passed through the app.",
    },
    "mcp_hosted_report": {
        "zh": "应用知道这些，只是因为服务商在响应里报告了它（{reported}：{methods}）。",
        "en": "The app knows of them only from the provider's report in its response ({reported}: {methods}).",
    },
    "mcp_hosted_unseen": {
        "zh": "和服务器说 MCP 的是模型服务商的 MCP 客户端，不是应用；这次没有在能记录的地方看到任何帧，只有服务商在响应里的报告"
        "（{reported}：{methods}）。",
        "en": "The model provider's MCP client, not the app, spoke MCP to the server; no frame of it crossed where "
        "this recording could see it, only the provider's report in its response ({reported}: {methods}).",
    },
    "mcp_hosted_nothing": {
        "zh": "这次运行里既没有看到 MCP 帧，服务商也没有报告任何 MCP 往来。",
        "en": "No MCP frame is recorded in this run, and the provider reports no MCP exchange.",
    },
    "mcp_hosted_no_translation": {
        "zh": "应用什么也没翻译：把列出的工具变成模型能读的定义、把模型的调用变成 tools/call，都是服务商在它那边做的。",
        "en": "The app translated nothing: turning the listed tools into definitions its model reads, and its "
        "model's call into a tools/call, is the provider's work, on its side.",
    },
    "translations_by_host": {
        "zh": "两次翻译是宿主应用做的，不是 MCP：正向翻译（{forward}，inputSchema → {w_schema}）和反向翻译"
        "（{reverse}，{w_call} → tools/call）都在应用里。MCP 没有定义函数调用的格式；文章 000 说“MCP 客户端 → "
        "模型 API”、由 MCP 翻译，这一点它说错了。",
        "en": "The two translations are the host app's work, not MCP's: the forward translation ({forward}, "
        "inputSchema → {w_schema}) and the reverse translation ({reverse}, {w_call} → tools/call) both happen in "
        "the app. MCP defines no function-calling format; article 000 has it wrong where it says the MCP client "
        "translates and sends message 3 to the model API.",
    },
    "forward_by_host": {
        "zh": "正向翻译（{forward}，inputSchema → {w_schema}）是宿主应用做的，不是 MCP：MCP 没有定义函数调用的格式；"
        "文章 000 说由 MCP 客户端翻译并发给模型 API，这一点它说错了。",
        "en": "The forward translation ({forward}, inputSchema → {w_schema}) is the host app's work, not MCP's: MCP "
        "defines no function-calling format; article 000 has it wrong where it says the MCP client translates and "
        "sends message 3 to the model API.",
    },
    "mcp_none": {
        "zh": "这次运行没有 MCP：应用自己持有手写的工具 Schema（第 {schemas} 跳），自己调用函数。"
        "把 arguments 字符串解析成 JSON 不是反向翻译——反向翻译指把模型的 {w_call} 变成 MCP 的 tools/call。",
        "en": "There is no MCP in this run: the app holds hand-written tool schemas (hop {schemas}) and calls the "
        "function itself. Reading the arguments with json.loads is no reverse translation: that name is for turning "
        "the model's {w_call} into an MCP tools/call.",
    },
    "mcp_none_messages": {
        "zh": "这次运行没有 MCP：应用自己持有手写的工具 Schema（第 {schemas} 跳），自己调用函数。"
        "tool_use 的 input 本来就是一个对象，应用直接拿来用，这不是反向翻译——反向翻译指把模型的 tool_use 变成 MCP 的 "
        "tools/call。",
        "en": "There is no MCP in this run: the app holds hand-written tool schemas (hop {schemas}) and calls the "
        "function itself. A tool_use's input is already an object, which the app takes as it is; that is no reverse "
        "translation: that name is for turning the model's tool_use into an MCP tools/call.",
    },
    "mcp_no_frames": {
        "zh": "这次运行里 MCP 客户端和服务器之间没有记录到任何帧。",
        "en": "No frame between the MCP client and the server is recorded in this run.",
    },
    "ran_server": {
        "zh": "{name}({args})：真实的 Python 函数，在 MCP 服务器的进程里运行；服务器报告它运行了（第 {seq} 跳）。",
        "en": "{name}({args}): the real Python function, run inside the MCP server's process; the server reports "
        "that it ran (hop {seq}).",
    },
    "ran_app": {
        "zh": "{name}({args})：应用自己的 Python 函数，在应用的进程里运行（第 {seq} 跳）。",
        "en": "{name}({args}): the app's own Python function, run in the app's process (hop {seq}).",
    },
    "ran_raised": {
        "zh": "它运行了，但抛出了 {error}（第 {seq} 跳）。",
        "en": "It ran and raised {error} (hop {seq}).",
    },
    "unreported": {
        "zh": "{name}：tools/call 送到了服务器，结果也回来了（第 {seq} 跳），但服务器没有报告函数本身的运行。",
        "en": "{name}: the tools/call reached the server and its result came back (hop {seq}); the server did not "
        "report the function's own run.",
    },
    "error_result": {
        "zh": "{name}：服务器的结果是一个错误（isError 为 true，第 {seq} 跳），它没有报告函数运行过。",
        "en": "{name}: the server's result is an error (isError true, hop {seq}), and it reports no run of the "
        "function.",
    },
    "not_sent": {
        "zh": "{name}：模型在第 {seq} 跳要求了它，但运行在应用发出调用之前就中止了，什么也没有运行。",
        "en": "{name}: the model asked for it at hop {seq}, but the run stopped before the app sent the call; nothing "
        "ran.",
    },
    "tool_stopped": {
        "zh": "没有工具运行：运行在模型要求调用工具之前就中止了。",
        "en": "No tool ran: the run stopped before the model asked for one.",
    },
    "rpc_error": {
        "zh": "{name}：什么也没有运行，服务器回了 JSON-RPC 错误 {code}（第 {seq} 跳）。",
        "en": "{name}: nothing ran; the server answered with JSON-RPC error {code} (hop {seq}).",
    },
    "refused": {
        "zh": "{name}：什么也没有运行，应用在发出调用之前就拒绝了这些参数（第 {seq} 跳）。",
        "en": "{name}: nothing ran; the app refused its arguments before sending the call (hop {seq}).",
    },
    "direct_failed": {
        "zh": "{name}：应用里没有这个名字的函数，什么也没有运行，结果是一个错误（第 {seq} 跳）。",
        "en": "{name}: the app has no function by that name, so nothing ran; the result is an error (hop {seq}).",
    },
    "no_result": {
        "zh": "{name}：没有记录到它的结果——运行在那之前中止了。",
        "en": "{name}: no result of it is recorded; the run stopped first.",
    },
    "ran_hosted": {
        "zh": "{call}：真实的 Python 函数，在 MCP 服务器的进程里运行（第 {seq} 跳）；调用它的是服务商的 MCP 客户端。",
        "en": "{call}: the real Python function, run inside the MCP server's process (hop {seq}); the provider's MCP "
        "client called it.",
    },
    "reported_hosted": {
        "zh": "{call}：服务商报告它的 MCP 客户端调用了它（第 {seq} 跳）；服务器里运行了什么，这次记录看不到。",
        "en": "{call}: the provider reports that its MCP client called it (hop {seq}); what ran inside the server is "
        "out of this recording's sight.",
    },
    "hosted_error": {
        "zh": "结果是一个错误：“{output}”。",
        "en": "The result is an error: {output}.",
    },
    "app_ran_none": {
        "zh": "应用没有执行任何工具代码，也没有发出 tools/call。",
        "en": "The app ran no tool code and sent no tools/call.",
    },
    "no_tool_hosted": {
        "zh": "没有：服务商没有报告任何工具调用，这次运行没有执行任何工具代码。",
        "en": "No one: the provider reports no tool call, and no tool code ran in this run.",
    },
    "no_tool": {
        "zh": "没有：模型没有要求调用工具，这次运行没有执行任何工具代码。",
        "en": "No one: the model asked for no tool, and no tool code ran in this run.",
    },
    "nobody_ran_model": {
        "zh": "模型和 MCP 客户端都不执行工具代码。",
        "en": "Neither the model nor the MCP client runs tool code.",
    },
    "model_runs_none": {"zh": "模型不执行任何代码。", "en": "The model runs no code."},
    # --- roles ----------------------------------------------------------------------------------------------------
    "roles": {"zh": "谁做什么，各自看到什么", "en": "Who does what, and what each one sees"},
    "role_host": {"zh": "宿主应用", "en": "Host app"},
    "role_client": {"zh": "MCP 客户端", "en": "MCP client"},
    "role_server": {"zh": "MCP 服务器", "en": "MCP server"},
    "role_model": {"zh": "模型 API", "en": "Model API"},
    "host_mcp": {
        "zh": "看到一切：问题、{requests} 个模型请求和回复、每个 {w_id}、每个结果。"
        "{w_id} 和 JSON-RPC id 的配对由它保管（{pairs}）。",
        "en": "Sees everything: the question, every request to the model and its reply ({requests} request(s)), every {w_id}, every "
        "result. It keeps the pairing of {w_id} and JSON-RPC id ({pairs}).",
    },
    "host_mcp_nopair": {
        "zh": "看到一切：问题、{requests} 个模型请求和回复、工具清单和每个结果。{translated}",
        "en": "Sees everything: the question, every request to the model and its reply ({requests} request(s)), the tool list and every "
        "result. {translated}",
    },
    "host_both": {"zh": "两边的翻译都由它来做。", "en": "It does both translations."},
    "host_forward": {
        "zh": "它把工具清单翻译给了模型；模型没有要求调用，所以没有反向翻译。",
        "en": "It translated the tool list for the model; the model asked for no call, so there was no reverse "
        "translation.",
    },
    "host_hosted": {
        "zh": "在请求里写上 MCP 服务器 {servers}（第 {request} 跳），把问题交给服务商；它什么也不翻译，什么也不执行。"
        "服务商做了什么，它只能从响应里的报告得知（{reported}）。",
        "en": "Names the MCP server {servers} in its request (hop {request}) and hands the question to the provider; "
        "it translates nothing and runs nothing. What the provider did it learns only from the report in the "
        "response ({reported}).",
    },
    "no_report": {"zh": "这次没有报告", "en": "none in this run"},
    "client_hosted": {
        "zh": "在模型服务商那里，不在宿主里：{frames} 个帧是服务商发给服务器 URL 的，应用一个也没有发。",
        "en": "Lives at the model provider, not in the host: the {frames} frames went from the provider to the "
        "server's URL; the app sent none of them.",
    },
    "client_hosted_unseen": {
        "zh": "在模型服务商那里，不在宿主里：它和服务器之间的帧不经过应用，这次也没有被记录到。",
        "en": "Lives at the model provider, not in the host: its frames to the server do not pass through the app, "
        "and none were recorded this time.",
    },
    "server_hosted": {
        "zh": "看到服务商的 MCP 客户端发来的帧：工具名和参数，看不到用户的问题，也看不到应用的请求。工具函数在它这里运行。",
        "en": "Sees the frames of the provider's MCP client: the tool's name and its arguments, not the user's "
        "question nor the app's requests. Tool functions run here.",
    },
    "client": {
        "zh": "在宿主里面，和服务器说 JSON-RPC：{frames} 个帧。{no_id}",
        "en": "Lives inside the host and speaks JSON-RPC to the server: {frames} frames. {no_id}",
    },
    "client_no_id": {
        "zh": "这些帧里没有一个带 {w_id}：MCP 从来看不到它。",
        "en": "None of them carries a {w_id}: MCP never sees one.",
    },
    "server": {
        "zh": "从另一端看到同样的帧：工具名和参数{no_question}。工具函数在它这里运行。",
        "en": "Sees the same frames from the other side: the tool's name and its arguments{no_question}. Tool "
        "functions run here.",
    },
    "server_sampled": {
        "zh": "它还通过采样（sampling/createMessage）看到了宿主的模型为它写的回复（{hops}），看不到应用自己的对话。",
        "en": "Through sampling (sampling/createMessage) it also saw the replies the host's model wrote for it "
        "({hops}), never the app's own conversation.",
    },
    "server_no_question": {
        "zh": "，看不到用户的问题，也看不到应用发给模型的请求",
        "en": ", not the user's question nor the app's requests to the model",
    },
    "model": {
        "zh": "收到应用的 {requests} 个 HTTP 请求：{carries}{backfill}。{no_frame}",
        "en": "Receives the app's {requests} request(s) over HTTP: {carries}{backfill}. {no_frame}",
    },
    "model_sampled": {
        "zh": "另有 {n} 个请求是宿主替服务器发的（{hops}）：服务器用 sampling/createMessage 请宿主的模型替它写回复。",
        "en": "And {n} request(s) the host sent for the server ({hops}): the server asked, with sampling/createMessage, for a "
        "reply from the host's model.",
    },
    **{f"carries_hosted_{api}": words.carries_hosted for api, words in WORDS.items()},
    **{f"carries_{api}": words.carries for api, words in WORDS.items()},
    "model_approvals": {
        "zh": "，后续请求里还有应用对批准请求的答复（mcp_approval_response）",
        "en": ", and in the follow-up the app's answer to the approval request (mcp_approval_response)",
    },
    "model_backfill": {"zh": "，回填时还有 {w_id}", "en": ", and in the backfill the {w_id}"},
    "model_no_frame": {
        "zh": "JSON-RPC 帧一个也到不了它那里。",
        "en": "Not one JSON-RPC frame reaches it.",
    },
    "host_direct": {
        "zh": "自己持有手写的工具 Schema，自己调用函数，看到一切。",
        "en": "Holds the hand-written tool schemas, calls the function itself, and sees everything.",
    },
    "direct_no_mcp": {
        "zh": "直接调用模式没有 MCP 客户端，也没有 MCP 服务器。",
        "en": "Direct mode has no MCP client and no MCP server.",
    },
    # --- what the tool definitions cost ------------------------------------------------------------------------
    "cost": {"zh": "工具定义的代价", "en": "What the tool definitions cost"},
    "cost_request": {
        "zh": "第 {k} 个请求（第 {seq} 跳）：{total} 字节里有 {tools} 字节是 {n_tools} 个工具定义（{share}）{tokens}。",
        "en": "Request {k} (hop {seq}): {tools} of its {total} bytes are the definitions of {n_tools} tool(s) ({share}){tokens}.",
    },
    "cost_tokens": {
        "zh": "；输入词元数（{w_tokens}）为 {prompt}，其中工具定义约 {est}（估算）",
        "en": "; {w_tokens} {prompt}, of which about {est} are the definitions (estimated)",
    },
    "cost_total": {
        "zh": "合计：发给模型的 {total} 字节里，工具定义占 {tools} 字节（{share}）。{again}",
        "en": "In all: {tools} of the {total} bytes sent to the model are tool definitions ({share}).{again}",
    },
    "cost_again": {
        "zh": "{requests} 个请求每个都重新带上全部定义。",
        "en": " Each of the {requests} requests carries all of them again.",
    },
    "cost_sampled": {
        "zh": "宿主替服务器发的 {n} 个请求（{hops}）共 {total} 字节，其中 {tools} 字节是服务器自己选的工具定义；它们不算在上面"
        "应用的请求里。",
        "en": "The {n} request(s) the host sent for the server ({hops}) weigh {total} bytes, {tools} of them tool definitions "
        "the server chose; they are not counted with the app's requests above.",
    },
    "cost_hosted_request": {
        "zh": "第 {k} 个请求（第 {seq} 跳）：{total} 字节，其中 {named} 字节是写明 MCP 服务器 {servers} 的条目，函数定义 {tools} "
        "字节。",
        "en": "Request {k} (hop {seq}): {total} bytes, of which {named} name the MCP server {servers}; function "
        "definitions: {tools} bytes.",
    },
    "cost_hosted_tokens": {
        "zh": "工具定义没有消失，只是挪了地方：服务商列出服务器的工具，把定义放进它自己给模型的提示里。它们算在服务商报告的"
        "输入词元数（{w_tokens}：{prompt}）里面，应用从自己发出的字节里量不出来，也无法把它们从总数里分出来。",
        "en": "The tool definitions did not go away; they moved: the provider lists the server's tools and puts "
        "the definitions into its own prompt to the model. They are inside the input tokens it reports "
        "({w_tokens} {prompt}), where the app cannot measure them from its own bytes nor tell them apart.",
    },
    "cost_hosted_no_tokens": {
        "zh": "工具定义没有消失，只是挪了地方：服务商把它列出的定义放进自己给模型的提示里，应用从自己的字节里量不出来；这次的响应"
        "也没有报告词元数。",
        "en": "The tool definitions did not go away; they moved: the provider puts the ones it lists into its own "
        "prompt, which the app cannot measure from its bytes; this run's responses reported no token counts "
        "either.",
    },
    "tokens_mock": {
        "zh": "这里的词元数来自离线模拟模型：它用应用自己的估算（中文每字一个、其他每四个字符一个）代替真正的分词器。"
        "真正的服务商会把工具定义渲染进自己的提示格式，所以按字节占比估算会低估工具的词元代价。",
        "en": "The token counts here come from the offline mock model, which uses the app's stand-in estimate (one "
        "per CJK character, one per four other characters) instead of a real tokenizer. A real provider renders "
        "the tool definitions into its own prompt format, so a share of bytes understates what they cost in "
        "tokens.",
    },
    "cost_no_request": {
        "zh": "这次运行没有记录到发给模型的请求，所以没有可算的数字。",
        "en": "No request to the model is recorded in this run, so there is nothing to measure.",
    },
    "cost_both": {
        "zh": "不用 MCP 也一样：{w_api} API 在请求之间什么也不记，工具定义每次都要放进请求的 tools 里。",
        "en": "Without MCP it is the same: the {w_api} API keeps nothing between requests, so the "
        "definitions go into each request's tools.",
    },
    "cost_both_responses": {
        "zh": "不用 MCP 也一样：这次每个请求都把整个输入重新发一遍（没有用 previous_response_id），工具定义也每次都放进请求的"
        " tools 里。",
        "en": "Without MCP it is the same: each request of this run sends the whole input again (it names no "
        "previous_response_id), and the definitions go into each request's tools.",
    },
    "cost_both_previous": {
        "zh": "不用 MCP 也一样：这次的后续请求用 previous_response_id 接上服务器保存的对话，不再重发对话；工具定义却没有"
        "省下，应用在每个请求的 tools 里都又发了一遍。",
        "en": "Without MCP it is the same: this run's follow-ups name previous_response_id and pick up the "
        "conversation the server kept, so it is not sent again; the tool definitions are not spared: the app sent "
        "them in each request's tools.",
    },
    "cost_40": {
        "zh": "文章 004 的算法：一个工具定义动辄几百词元，按每个 300 算，40 个工具就是 40 × 300 = 12,000 词元，每个请求都要带"
        "（文章说的“几万”，要每个定义 500 词元以上才够）。"
        "这次的定义：{n_tools} 个约 {est} 词元，每个约 {each}；40 个这样的工具每个请求约 {forty} 词元，"
        "这次的 {requests} 个请求合计约 {run}。",
        "en": "Article 004's sum: a tool definition is easily a few hundred tokens; at 300 each, 40 tools are "
        "40 × 300 = 12,000 tokens, in every request (the article's 'tens of thousands' needs 500 or more a "
        "definition). This run's definitions: {n_tools} are about {est} tokens, about "
        "{each} each; 40 such tools would be about {forty} tokens per request, about {run} for this run's {requests} request(s).",
    },
    "cost_correction": {
        "zh": "文章 004 说 MCP 把工具清单缓存在客户端，不必塞进每一次模型请求，从结构上解决了工具定义膨胀——这不对。"
        "MCP 客户端缓存的是它从 tools/list 拿到的清单；宿主选择暴露给模型的每一个定义，仍然要放进每一个请求"
        "（这次的 {requests} 个请求各带 {n_tools} 个）。MCP 改变的是谁来维护这些定义，不是模型收到多少。"
        "想少发，只能让宿主少暴露几个工具。",
        "en": "Article 004 says MCP keeps the tool list on the client instead of putting it into every model request, "
        "and so solves the growth of tool definitions. It does not: the MCP client caches the list it got from "
        "tools/list, but the host still sends every definition it chooses to expose in every request (this run sent "
        "{n_tools} in each request, {requests} request(s) in all). What MCP changes is who maintains the definitions, not what the "
        "model is sent. To send fewer, the host has to expose fewer tools.",
    },
    # --- when to choose which ---------------------------------------------------------------------------------------
    "choose": {"zh": "什么时候用哪一个", "en": "When to choose which"},
    "choose_fc": {
        "zh": "只有几个固定的函数、只在一个应用里用：直接用函数调用就够了，MCP 是多出来的一层。",
        "en": "A few fixed functions used by one app: function calling is enough; MCP is one more layer to run.",
    },
    "choose_mcp": {
        "zh": "工具会越来越多、要给几个客户端或几个团队共用：用 MCP。",
        "en": "A growing tool set shared by several clients or teams: MCP.",
    },
    "buys": {
        "zh": "MCP 换来的是：一个服务器给许多宿主复用；它单独部署、单独发布；工具在运行时才被发现（tools/list）；"
        "工具之外还有资源和提示模板{offered}。",
        "en": "What MCP buys: one server reused by many hosts; deployed and released on its own; tools discovered at "
        "run time (tools/list); resources and prompts beside tools{offered}.",
    },
    "cap_resources": {"zh": "资源", "en": "resources"},
    "cap_prompts": {"zh": "提示模板", "en": "prompts"},
    "buys_offered": {
        "zh": "（这个服务器在第 {seq} 跳就声明了它还提供{caps}）",
        "en": " (this server announced {caps} at hop {seq})",
    },
}


"""The closing view's sentences; `{…}` are filled from the trace by flow.views.closing."""


COMPARE_POINT_TEXT: dict[str, dict[Lang, str]] = {
    # the Compare page's heading and the names of its two sides (`pair_names`)
    "heading_modes": {"zh": "{a}与 {b} 对比", "en": "{a} vs {b}"},
    "heading_apis": {"zh": "{a} 与 {b} 对比（{mode}）", "en": "{a} vs {b} ({mode})"},
    "heading_two": {"zh": "两次运行对比", "en": "Two runs compared"},
    "mode_direct": {"zh": "直接调用模式", "en": "direct mode"},
    "mode_mcp": {"zh": "MCP", "en": "MCP"},
    "mode_hosted": {"zh": "托管 MCP", "en": "hosted MCP"},
    "apis": {
        "zh": "A 用 {api_a}，B 用 {api_b}：同样的问题，线路上的字节不同。模型一共收到 {bytes_a} 和 {bytes_b} 字节；每个请求里的工具"
        "定义是 {tools_a} 和 {tools_b} 字节（A：{shape_a}；B：{shape_b}）。回填（消息 8）时，A {back_a}，B {back_b}"
        "（第一个回填请求 {back_bytes_a} 和 {back_bytes_b} 字节）。",
        "en": "A speaks {api_a}, B {api_b}: the same question, other bytes on the wire. The model is sent {bytes_a} "
        "and {bytes_b} bytes in all; the tool definitions weigh {tools_a} and {tools_b} bytes a request (A: "
        "{shape_a}; B: {shape_b}). In the backfill (message 8), A {back_a}, B {back_b} (the first backfill "
        "request: {back_bytes_a} and {back_bytes_b} bytes).",
    },
    **{f"shape_{api}": words.tool_shape for api, words in WORDS.items()},
    "shape_hosted": {
        "zh": "没有函数定义，只有一个写明 MCP 服务器的条目，工具由服务商自己列出",
        "en": "no function definitions, one entry naming the MCP server, whose tools the provider lists itself",
    },
    "back_hosted": {
        "zh": "没有自己的回填（服务商在内部把结果交回它的模型）",
        "en": "sends no backfill of its own (the provider hands the result to its model inside)",
    },
    "hosted_lead": {
        "zh": "{hosted} 是托管 MCP：列出工具、选定调用、发出 tools/call、把结果交回模型，都在模型服务商那里完成，{hosted} 的应用只写了"
        "服务器，什么也不翻译；{other} 的这些步骤由应用自己做或不需要。",
        "en": "{hosted} is hosted MCP: listing the tools, choosing the call, sending the tools/call and handing the "
        "result back to the model all happen at the model provider, and {hosted}'s app only names the server and "
        "translates nothing; in {other}, the app does these steps itself or has no need of them.",
    },
    **{f"back_{api}": words.backfill for api, words in WORDS.items()},
    "back_previous": {
        "zh": "每个调用一个 function_call_output 项，引用 call_id，只发新项并附上 previous_response_id",
        "en": "sends a function_call_output item per call, quoting its call_id, and only the new items beside "
        "previous_response_id",
    },
    "no_backfill": {"zh": "没有回填", "en": "has no backfill"},
    "direct": {"zh": "直接调用模式", "en": "direct mode"},
    "requests_same": {
        "zh": "模型收到的请求几乎一样：两边各调用模型 {calls} 次，共 {bytes_a} 和 {bytes_b} 字节；工具定义在两边都占 {share}"
        "{again}。",
        "en": "The model receives practically the same requests: {calls} calls in each, {bytes_a} and {bytes_b} bytes "
        "in all; the tool definitions are {share} of them in both{again}.",
    },
    "requests_differ": {
        "zh": "模型收到的请求不一样：{base}调用模型 {n_a} 次、共 {bytes_a} 字节，工具定义占 {share_a}；{other} 调用 {n_b} 次、"
        "共 {bytes_b} 字节，工具定义占 {share_b}。",
        "en": "The model receives different requests: {base} makes {n_a} calls of {bytes_a} bytes in all, tool "
        "definitions {share_a} of them; {other} {n_b} calls of {bytes_b} bytes, tool definitions {share_b}.",
    },
    "shares": {"zh": "{a} 和 {b}", "en": "{a} and {b}"},
    "again": {"zh": "，每一轮都重新发送", "en": ", sent again every round"},
    "frames": {"zh": "{n} 帧", "en": "{n} frames"},
    "frame": {"zh": "{n} 帧", "en": "{n} frame"},
    "per_session": {
        "zh": "MCP 每个会话多一次 {setup}（{n_setup}）和 {listing}（{n_list}）",
        "en": "MCP adds, once per session, {setup} ({n_setup}) and {listing} ({n_list})",
    },
    "per_client": {
        "zh": "MCP 在提问之前多一次 {discover}（{n_setup}；2026-07-28 没有会话，它只询问版本和能力，客户端也可以不发）和 "
        "{listing}（{n_list}）",
        "en": "MCP adds, once before any question, {discover} ({n_setup}; 2026-07-28 has no session: it only asks for "
        "versions and capabilities, and a client may skip it) and {listing} ({n_list})",
    },
    "listing_only": {
        "zh": "MCP 在提问之前多一次 {listing}（{n_list}）",
        "en": "MCP adds, once before any question, {listing} ({n_list})",
    },
    "per_question": {
        "zh": "；每个问题多宿主的正向翻译（inputSchema → {w_schema}），每个工具调用（这里 {calls} 个）多一次反向翻译"
        "（{w_call} → tools/call）和它的请求、结果两帧（共 {call_frames}）。",
        "en": "; per question, the host's forward translation (inputSchema → {w_schema}), and per tool call (here "
        "{calls}) a reverse translation ({w_call} → tools/call) with its request and result frames ({call_frames} "
        "in all).",
    },
    "no_translation": {
        "zh": "直接调用模式只是把 arguments 字符串解析成 JSON，再调用自己的函数：这不是反向翻译。",
        "en": "Direct mode's json.loads of the arguments is no reverse translation: the app calls its own function.",
    },
    "no_translation_messages": {
        "zh": "直接调用模式直接拿 tool_use 的 input 对象去调用自己的函数，连 JSON 字符串都不用解析：这不是反向翻译。",
        "en": "Direct mode hands the tool_use's input object to its own function, with not even a JSON string to "
        "parse: no reverse translation.",
    },
    "model_side": {"zh": "模型一方：{same}。", "en": "On the model's side: {same}."},
    "model_differs": {"zh": "不同的是：{differs}。", "en": "What differs: {differs}."},
    "buys_choose": {
        "zh": "MCP 换来的是：一个服务器给许多宿主复用，单独部署、单独发布，工具在运行时发现，工具之外还有资源和提示模板——"
        "工具越来越多、几个客户端或团队共用时选它；几个固定函数、一个应用，用函数调用就够了。",
        "en": "What MCP buys: one server reused by many hosts, deployed and released on its own, tools discovered at "
        "run time, resources and prompts beside tools; choose it for a growing tool set shared by several clients "
        "or teams, and function calling for a few fixed functions in one app.",
    },
    "discover_piece": {
        "zh": "server/discover {n} 帧（不是会话建立：它只询问版本和能力）",
        "en": "server/discover of {n} frames (no session set-up: it only asks for versions and capabilities)",
    },
}


"""Compare's sentences for a pair of runs, in pieces (flow.views.compare.point fills them from the two traces)."""
