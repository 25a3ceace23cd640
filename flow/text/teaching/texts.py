"""The teaching text of each situation a hop can be in, in both languages: two or three sentences saying what
crosses, why, and what to notice in this hop's payload.

A text is a `str.format` template; its fields are filled from the hop (`flow.text.teaching.situations`). Chinese
texts keep protocol names, JSON field names and values as they are on the wire (tools/call, isError, tool_call_id)
and use no other English word.
"""

from __future__ import annotations

from flow.text.names import Lang
from flow.text.teaching.apis import API_TEXTS
from flow.text.teaching.asking import ASKING_TEXTS

Texts = dict[str, dict[Lang, str]]


# --- step 0 and 1 --------------------------------------------------------------------------------------------------
_PREPARE_AND_ASK: Texts = {
    "prepare.mcp": {
        "en": "Before any question, the server has built its tool list from decorated functions: {tools}. "
        "Each entry holds {fields} (the MCP spec also allows title, annotations, icons and _meta); of "
        "these the model will only ever read the name, the description and the argument schema, so "
        "those are what to write with care.",
        "zh": "提问之前，服务器已经根据带装饰器的函数生成了工具清单：{tools}。每一项含有 {fields}（MCP 规范还允许 title、annotations、icons 和 "
        "_meta）；其中模型只会读到名字、描述和参数的 Schema，所以这几项最要用心写。",
    },
    "prepare.direct": {
        "en": "Direct mode: the developer wrote these schemas by hand, already in the function-calling format (type "
        '"function", parameters): {tools}. No server builds or lists them; when a function changes, its schema has '
        "to be edited too.",
        "zh": "直接调用模式：开发者按函数调用的格式（type 为 function，带 parameters）手写了这些工具定义：{tools}。"
        "没有服务器来生成或列出它们；函数一改，定义也得跟着手改。",
    },
    "question": {
        "en": "Message 1: the user's question reaches the app: “{question}”. It is plain text; nothing has gone to the "
        "model or to any tool yet.",
        "zh": "第 1 条消息：用户的问题到达应用：“{question}”。这只是一段文字，此时模型和工具都还没有收到任何东西。",
    },
    "question.prompt": {
        "en": "The question is asked through the server's prompt {prompt}: the text sent is the one its template "
        "produced. The app (or the user) chose the prompt; the model only ever sees the resulting messages.",
        "zh": "这个问题通过服务器的提示模板 {prompt} 提出：发出的文字由模板生成。选用模板的是应用或用户，"
        "模型只看得到生成的消息。",
    },
}


# --- step 2: session set-up and listings ---------------------------------------------------------------------------
_SETUP: Texts = {
    "initialize.request": {
        "en": "The handshake begins: the client sends initialize with the newest protocol version it can reach "
        "through a handshake, {version}, and names itself ({client}). It is a request with id {id}: the server's answer will carry the "
        "same id.",
        "zh": "握手开始：客户端发送 initialize，带上它通过握手能用的最新协议版本 {version}，并报上自己的名字（{client}）。"
        "这是一个 id 为 {id} 的请求，服务器的回答会带回同一个 id。",
    },
    "initialize.result": {
        "en": "The InitializeResult (id {id}) settles the session: both sides will speak protocol {version}, and "
        "the server declares its capabilities: {capabilities}. The client may use only what is declared here.",
        "zh": "InitializeResult（id {id}）确定了这次会话：双方将使用协议版本 {version}，服务器声明了自己的 "
        "capabilities：{capabilities}。客户端只能使用这里声明过的能力。",
    },
    "initialized": {
        "en": "notifications/initialized has no id, so nothing answers it: it only tells the server that the "
        "handshake is over. Only from now on may the client send ordinary requests such as tools/list.",
        "zh": "notifications/initialized 没有 id，所以不会有回复：它只是告诉服务器握手已经完成。"
        "从这时起，客户端才能发送 tools/list 这样的普通请求。",
    },
    "discover.request": {
        "en": "Protocol 2026-07-28 has no handshake and no session: with server/discover (id {id}) the client "
        "only asks which versions and capabilities the server advertises, and it may skip this request "
        "altogether. Every request carries its protocol version ({version}) in its own _meta, where "
        "clientInfo is optional, so the server keeps nothing between requests.",
        "zh": "2026-07-28 协议没有握手，也没有会话：客户端用 server/discover（id {id}）只是询问服务器公布了哪些版本和能力，这个请求也可以完全省略。每个请求都在自己的 "
        "_meta 里带上协议版本（{version}），clientInfo 在那里是可选的，所以服务器在请求之间什么也不保存。",
    },
    "discover.result": {
        "en": "The discover answer (id {id}) advertises the versions the server supports ({versions}) and its "
        "capabilities ({capabilities}). The client chooses a version from that list and names it in the "
        "_meta of each later request; nothing is settled or remembered here, unlike an "
        "InitializeResult, which opens a session.",
        "zh": "server/discover 的回答（id {id}）公布了服务器支持的版本（{versions}）和 "
        "capabilities（{capabilities}）。客户端从中选一个版本，写进之后每个请求的 _meta；这里什么也没有确定下来，也不保存状态，这一点与开启会话的 "
        "InitializeResult 不同。",
    },
    "tools_list.request": {
        "en": "The client asks for tools/list (id {id}). The request names no tool: the server answers with "
        "its tools a page at a time (a nextCursor in the result would call for another request), and "
        "this app offers every tool listed to the model.",
        "zh": "客户端请求 tools/list（id {id}）。请求里不指定任何工具：服务器按页返回它的工具（结果里若有 nextCursor，就要再请求下一页），本应用会把列出的工具全部提供给模型。",
    },
    "tools_list.result": {
        "en": "The tool list comes back under the same id {id}: {tools}. Each tool carries {fields}, and the "
        "result has no nextCursor, so this one page is the whole list.",
        "zh": "工具清单带着同一个 id {id} 返回：{tools}。每个工具都带有 {fields}；结果里没有 nextCursor，所以这一页就是完整的清单。",
    },
    "tools_list.result.page": {
        "en": "A page of the tool list comes back under id {id}: {tools}, each with {fields}. Its nextCursor "
        "({cursor}) says there are more: the client asks tools/list again with that cursor for the next "
        "page.",
        "zh": "工具清单的一页带着 id {id} 返回：{tools}，每个都带有 {fields}。其中的 nextCursor（{cursor}）说明后面还有：客户端要带着这个游标再请求一次 "
        "tools/list，才能拿到下一页。",
    },
    "client.tools": {
        "en": "The MCP client hands the app the tools ({tools}) as objects, without the JSON-RPC envelope. This "
        "answers message 2: the app now knows what it can offer the model.",
        "zh": "MCP 客户端把工具（{tools}）作为对象交给应用，去掉了 JSON-RPC 的外壳。第 2 条消息到此得到回答："
        "应用知道了可以向模型提供哪些工具。",
    },
    "direct.tools": {
        "en": "Direct mode has no server to ask: the app already holds its hand-written schemas ({tools}). This step "
        "costs nothing, and nothing crosses a process boundary.",
        "zh": "直接调用模式没有服务器可问：应用手里已经有手写的工具定义（{tools}）。"
        "这一步没有开销，也没有跨越任何进程。",
    },
    "resources_list.request": {
        "en": "resources/list (id {id}) asks what read-only data the server offers. In this app resources are "
        "read by the app and put into the conversation, not offered to the model as tools: MCP leaves "
        "that choice to the host.",
        "zh": "resources/list（id {id}）询问服务器提供哪些只读数据。在本应用里，资源由应用读取并放进对话，而不是作为工具提供给模型：怎么用资源，MCP 留给宿主应用决定。",
    },
    "resources_list.result": {
        "en": "The server lists its resources, each named by a uri: {uris}. The app decides which to read; in "
        "this app the model does not see this list.",
        "zh": "服务器列出了自己的资源，每个都用一个 uri 标识：{uris}。读哪一个由应用决定；在本应用里，模型看不到这份清单。",
    },
    "resources_read.request": {
        "en": "resources/read (id {id}) fetches {uri}. It is the app, not the model, that asks: this is context "
        "chosen before the model is called.",
        "zh": "resources/read（id {id}）读取 {uri}。发起读取的是应用而不是模型：这是在调用模型之前就选好的上下文。",
    },
    "resources_read.result": {
        "en": "The contents of {uri} come back as {mime}. The app will put this text into the conversation "
        "itself, so the model reads it as part of its input.",
        "zh": "{uri} 的 contents 以 {mime} 返回。应用会自己把这段文字放进对话，模型把它当作输入的一部分来读。",
    },
    "client.resource": {
        "en": "The client hands the app the resource {uri}. Unlike a tool result it answers no tool_call: it goes "
        "into the first request as context.",
        "zh": "客户端把资源 {uri} 交给应用。它和工具结果不同，不对应任何 tool_call，而是作为上下文放进第一次请求。",
    },
    "prompts_list.request": {
        "en": "prompts/list (id {id}) asks for the server's prompt templates: ready-made messages a user can pick, "
        "with arguments to fill in. Like resources, prompts are offered to people and apps, not to the model.",
        "zh": "prompts/list（id {id}）请求服务器的提示模板：用户可以挑选、再填入参数的现成消息。"
        "和资源一样，提示模板是提供给人和应用的，而不是给模型的。",
    },
    "prompts_list.result": {
        "en": "The server offers these prompts: {prompts}. Each declares its arguments; a prompt is chosen by the "
        "user or the app, never by the model.",
        "zh": "服务器提供这些提示模板：{prompts}。每个都声明了自己的 arguments；选用模板的是用户或应用，从来不是模型。",
    },
    "prompts_get.request": {
        "en": "prompts/get (id {id}) asks for the prompt {prompt} with its arguments filled in. The server does the "
        "templating; the client only sends the names and values.",
        "zh": "prompts/get（id {id}）请求填好参数的提示模板 {prompt}。模板由服务器来填，客户端只发送参数名和值。",
    },
    "prompts_get.result": {
        "en": "The prompt comes back as ready messages, with the roles {roles}. The app will send them to the model "
        "as they are, in place of a typed question.",
        "zh": "模板以现成的 messages 返回，role 依次为 {roles}。应用会把它们原样发给模型，代替手工输入的问题。",
    },
    "client.prompt": {
        "en": "The client hands the app the prompt {prompt}, turned into chat messages. From here on it is an "
        "ordinary conversation for the model.",
        "zh": "客户端把模板 {prompt} 转成聊天消息交给应用。对模型来说，从这里开始就是一段普通的对话。",
    },
    "client.other": {
        "en": "The MCP client hands the app what the server answered, as objects rather than JSON-RPC frames. The "
        "app never handles the wire itself.",
        "zh": "MCP 客户端把服务器的回答作为对象交给应用，而不是 JSON-RPC 帧。应用自己从不直接处理线路上的消息。",
    },
}


# --- any JSON-RPC frame the texts above do not name ----------------------------------------------------------------
_FRAMES: Texts = {
    "rpc.request": {
        "en": "A JSON-RPC request, {method}, with id {id}. Whatever the method, its answer is matched to it by that "
        "id, not by the order frames arrive in.",
        "zh": "一个 JSON-RPC 请求 {method}，id 为 {id}。无论是什么方法，回复都靠这个 id 对应，而不是靠到达的先后。",
    },
    "rpc.result": {
        "en": "A JSON-RPC result for id {id}. A result names no method: only the id says which request it answers.",
        "zh": "id 为 {id} 的 JSON-RPC 结果。结果里没有方法名，只有 id 能说明它回答的是哪个请求。",
    },
    "rpc.notification": {
        "en": "{method} is a notification: it has no id and expects no reply. Its sender goes on without waiting, "
        "and no answer will come.",
        "zh": "{method} 是一条通知：它没有 id，也不需要回复。发送方发完就继续，不等，也不会有回答。",
    },
    "cancelled": {
        "en": "notifications/cancelled: the client withdraws request {request_id}, which it no longer waits "
        "for. A late answer to it will be ignored; being told, the server can stop the work rather than finish it "
        "for nobody.",
        "zh": "notifications/cancelled：客户端撤回了请求 {request_id}，不再等它的回复。之后迟到的回答会被忽略；"
        "服务器收到这条通知，就可以停下手里的活，不必为没人等的请求做完它。",
    },
    "resource_updated": {
        "en": "notifications/resources/updated: the server tells the client that {uri} changed. Only the server "
        "sends it, and only for a resource the client asked to hear about (resources/subscribe in 2025-11-25, "
        "the subscriptions/listen stream in 2026-07-28); it carries no content, so a client that wants the new "
        "text reads the resource again.",
        "zh": "notifications/resources/updated：服务器告诉客户端 {uri} 变了。只有服务器会发它，而且只针对客户端要求关注的"
        "资源（2025-11-25 里用 resources/subscribe，2026-07-28 里用 subscriptions/listen 那条流）；通知里没有内容，"
        "客户端想看新内容就得再读一次这个资源。",
    },
    "ping.request": {
        "en": "ping (id {id}): a request with no parameters. The other side must answer at once with an empty "
        "result; it only checks that the connection still answers.",
        "zh": "ping（id 为 {id}）：一个不带参数的请求。对方必须马上用一个空结果回答；它只用来确认连接还有回应。",
    },
    "subscribe.request": {
        "en": "resources/subscribe (id {id}) for {uri}: the client asks to be told when this resource changes. "
        "The server answers with an empty result, and later sends notifications/resources/updated when it does.",
        "zh": "resources/subscribe（id 为 {id}），订阅 {uri}：客户端要求在这个资源变化时得到通知。服务器先回一个空结果，"
        "等资源变了再发 notifications/resources/updated。",
    },
    "unsubscribe.request": {
        "en": "resources/unsubscribe (id {id}) for {uri}: the client no longer wants to hear when this resource "
        "changes. The server answers with an empty result and stops sending its updates.",
        "zh": "resources/unsubscribe（id 为 {id}），退订 {uri}：客户端不再需要这个资源变化的通知。服务器回一个空结果，"
        "之后不再发它的更新通知。",
    },
    "listen.request": {
        "en": "With subscriptions/listen (id {id}) the client opts in to the notifications it wants: {kinds}. "
        "Protocol 2026-07-28 has no session to send them over, so this request stays open as a long-lived "
        "stream; the server may send only the kinds named here, and answers the request only when it ends the "
        "stream.",
        "zh": "客户端用 subscriptions/listen（id 为 {id}）选择它要接收的通知：{kinds}。2026-07-28 协议没有会话可以用来"
        "推送通知，所以这个请求会一直开着，作为一条长期的通知流；服务器只能发这里点名的几类通知，只有在结束这条流时才回答这个请求。",
    },
    "listen.acknowledged": {
        "en": "notifications/subscriptions/acknowledged, the first message on the stream of subscriptions/listen "
        "{id}: the server agrees to send {kinds}. A kind it does not support would be left out here, and then "
        "never sent.",
        "zh": "notifications/subscriptions/acknowledged 是 subscriptions/listen {id} 这条流上的第一条消息："
        "服务器同意发送 {kinds}。它不支持的种类会从这里去掉，之后也不会发送。",
    },
    "cancelled.listen": {
        "en": "notifications/cancelled for {request_id}, the client's own subscriptions/listen: the client ends "
        "that stream and wants no more notifications on it. Such a request gets no ordinary answer, so "
        "cancelling it is how a client closes it; a server that ends the stream itself answers the request "
        "instead.",
        "zh": "notifications/cancelled 撤回的是 {request_id}，也就是客户端自己的 subscriptions/listen：客户端结束这条流，"
        "不再接收上面的通知。这种请求不会得到普通的回答，所以客户端要关掉它就得撤回它；如果是服务器主动结束这条流，"
        "它会回答这个请求。",
    },
    "list_changed": {
        "en": "{method}: the server says one of its lists has changed (a tool added or removed, say). The "
        "notification carries no list; a client that cares asks for the list again.",
        "zh": "{method}：服务器告知它的某份清单变了（比如增删了工具）。通知本身不带清单，需要的客户端要重新请求一次。",
    },
    "progress": {
        "en": "A progress notification for the call whose progressToken is {token}: {progress} of {total}. It is not "
        "the result: the tools/call is still open, and its answer will come under the request's own id.",
        "zh": "progressToken 为 {token} 的调用发来进度通知：{progress}/{total}。这不是结果：tools/call 还没有结束，"
        "答案会带着请求自己的 id 另外返回。",
    },
    "progress.open": {
        "en": "A progress notification for the call whose progressToken is {token}: {progress} so far, with no total "
        "given. The tools/call is still open; the result will come under the request's own id.",
        "zh": "progressToken 为 {token} 的调用发来进度通知：目前为 {progress}，没有给出总量。tools/call 还没有结束，"
        "结果会带着请求自己的 id 返回。",
    },
    "log": {
        "en": "A log notification at level {level}: “{data}”. The server reports what it is doing while the call "
        "runs; nothing in the result depends on it.",
        "zh": "一条级别为 {level} 的日志通知：“{data}”。服务器在调用进行时报告自己在做什么，结果并不依赖它。",
    },
}


# --- steps 3, 4, 8, 9: the model -----------------------------------------------------------------------------------
_MODEL: Texts = {
    "translate.forward": {
        "en": "Forward translation, inside the app: each MCP tool ({tools}) becomes a function, its "
        'inputSchema renamed parameters inside type "function". The schema does not cross unchanged: '
        "the app removes {removed} from the schemas ({count} key(s) in all, which only add tokens) and "
        "leaves out {left_out}, for which a chat function has no field.",
        "zh": "正向翻译，在应用内部完成：每个 MCP 工具（{tools}）都变成一个 function，inputSchema 改名为 parameters，外面包一层 type: "
        "function。Schema 并非原样传过去：应用从中删掉了 {removed}（一共 {count} 个键，它们只会多占词元），还去掉了 {left_out}，因为对话接口的 "
        "function 没有对应的字段。",
    },
    "translate.forward.schema": {
        "en": "Forward translation, inside the app: each MCP tool ({tools}) becomes a function, its "
        'inputSchema renamed parameters inside type "function". The schema does not cross unchanged: '
        "the app removes {removed} ({count} key(s) in all), which only add tokens.",
        "zh": "正向翻译，在应用内部完成：每个 MCP 工具（{tools}）都变成一个 function，inputSchema 改名为 parameters，外面包一层 type: "
        "function。Schema 并非原样传过去：应用从中删掉了 {removed}（一共 {count} 个键），它们只会多占词元。",
    },
    "translate.forward.fields": {
        "en": "Forward translation, inside the app: each MCP tool ({tools}) becomes a function, its "
        'inputSchema renamed parameters inside type "function". The schemas cross unchanged, but the '
        "app leaves out {left_out}, for which a chat function has no field.",
        "zh": "正向翻译，在应用内部完成：每个 MCP 工具（{tools}）都变成一个 function，inputSchema 改名为 parameters，外面包一层 type: "
        "function。Schema 原样传过去，但应用去掉了 {left_out}，因为对话接口的 function 没有对应的字段。",
    },
    "translate.forward.same": {
        "en": "Forward translation, inside the app: each MCP tool ({tools}) becomes a function, its "
        'inputSchema renamed parameters inside type "function". Here the schemas cross unchanged and '
        "the tools hold nothing more: only the envelope differs.",
        "zh": "正向翻译，在应用内部完成：每个 MCP 工具（{tools}）都变成一个 function，inputSchema 改名为 parameters，外面包一层 type: "
        "function。这里 Schema 原样传过去，工具也没有别的字段：变的只是外壳。",
    },
    "translate.forward.strict": {
        "en": "Forward translation with strict on: each MCP tool ({tools}) becomes a function carrying strict "
        "true, and the app rewrites its schema so that every property is required and "
        "additionalProperties is false. It also leaves out {removed}: compare the two sides of this hop "
        "key by key.",
        "zh": "开启 strict 的正向翻译：每个 MCP 工具（{tools}）都变成一个带 strict: true 的 function，应用还改写了它的 "
        "Schema：每个属性都变成必填，additionalProperties 为 false。它另外去掉了 {removed}：把这一跳的两边逐个键对比一下。",
    },
    "ask.first": {
        "en": "Message 3: the first chat.completions request, with {messages} message(s), {tools} tool(s) and "
        "tool_choice {choice}. The model sees only this JSON, and {share} % of its bytes are the tool "
        "definitions.",
        "zh": "第 3 条消息：第一次 chat.completions 请求，带 {messages} 条消息、{tools} 个工具定义，tool_choice 为 {choice}。模型只看得到这段 "
        "JSON，其中 {share}% 的字节是工具定义。",
    },
    "ask.first.named": {
        "en": "Message 3: the first chat.completions request, with {messages} message(s) and {tools} tool(s), "
        'and a tool_choice that names one function: on the wire it is {{"type": "function", "function": '
        '{{"name": "{name}"}}}}, not the bare name. The model sees only this JSON, and {share} % of its '
        "bytes are the tool definitions.",
        "zh": "第 3 条消息：第一次 chat.completions 请求，带 {messages} 条消息、{tools} 个工具定义，tool_choice 指定了一个函数：线路上它是 "
        '{{"type": "function", "function": {{"name": "{name}"}}}}，而不是光写函数名。模型只看得到这段 JSON，其中 {share}% '
        "的字节是工具定义。",
    },
    "ask.backfill": {
        "en": "Message 8, the backfill: the model keeps no memory, so the app sends the whole conversation "
        "again ({messages} messages), the assistant message with its tool_calls and then one role "
        '"tool" message per tool_call_id ({ids}). The loop ends when a reply has no tool_calls.',
        "zh": "第 8 条消息，回填：模型不记得上一次请求，所以应用把整段对话再发一次（{messages} 条消息）：先是带 tool_calls 的助手消息，再是每个 tool_call_id 各一条 "
        "role 为 tool 的消息（{ids}）。等到某次回复里没有 tool_calls，循环才结束。",
    },
    "translate.content": {
        "en": "The app translates what the MCP client handed over ({what}) into what the model API takes: MCP content "
        "blocks become messages. Here it is all text, so the words go across as they are.",
        "zh": "应用把 MCP 客户端交来的内容（{what}）翻译成模型接口能接受的形式：MCP 的内容块变成消息。"
        "这里全是文字，所以原样传过去。",
    },
    "translate.content.mixed": {
        "en": "The app translates what the MCP client handed over ({what}) into what the model API takes: "
        "{hows}. In Chat Completions a user message may carry text, image, audio and file parts, a system or tool "
        "message text only. This app sends no file part: what cannot go as itself goes as a line saying "
        "what it was, so the model knows something was there.",
        "zh": "应用把 MCP "
        "客户端交来的内容（{what}）翻译成模型接口能接受的形式：{hows}。在 Chat Completions 里，用户消息可以带文字、图片、音频和文件，系统消息或工具消息只能带文字。本应用不发送文件：不能原样发送的，就换成一行说明它是什么，让模型知道那里本来有东西。",
    },
    "ask.backfill.adapted": {
        "en": "Message 8, the backfill: the model keeps no memory, so the app sends the whole conversation "
        "again ({messages} messages), the assistant message with its tool_calls and then one role "
        '"tool" message per tool_call_id ({ids}). The loop ends when a reply has no tool_calls. Before '
        'sending, the app changed one thing, as adapted records: the model\'s null {path} goes as "" '
        "(OpenAI takes both, some compatible servers refuse null).",
        "zh": "第 8 条消息，回填：模型不记得上一次请求，所以应用把整段对话再发一次（{messages} 条消息）：先是带 tool_calls 的助手消息，再是每个 tool_call_id 各一条 "
        "role 为 tool 的消息（{ids}）。等到某次回复里没有 tool_calls，循环才结束。发送之前应用改了一处，adapted 字段记着：模型写的 {path} 是 "
        'null，应用改成 "" 发出（OpenAI 两种都接受，有些兼容服务器拒绝 null）。',
    },
    "ask.backfill.auto": {
        "en": "Message 8, the backfill: the model keeps no memory, so the app sends the whole conversation "
        "again ({messages} messages), the assistant message with its tool_calls and then one role "
        '"tool" message per tool_call_id ({ids}). tool_choice is back to "auto" (it was {before}): '
        "while forced, the model must call a tool every time, so only now can a reply without "
        "tool_calls end the loop.",
        "zh": "第 8 条消息，回填：模型不记得上一次请求，所以应用把整段对话再发一次（{messages} 条消息）：先是带 tool_calls 的助手消息，再是每个 tool_call_id 各一条 "
        'role 为 tool 的消息（{ids}）。tool_choice 改回了 "auto"（之前是 {before}）：被强制时模型每次都得调用工具，所以只有现在，一次不带 '
        "tool_calls 的回复才能结束循环。",
    },
    "ask.backfill.auto_adapted": {
        "en": "Message 8, the backfill: the model keeps no memory, so the app sends the whole conversation "
        "again ({messages} messages), the assistant message with its tool_calls and then one role "
        '"tool" message per tool_call_id ({ids}). tool_choice is back to "auto" (it was {before}): '
        "while forced, the model must call a tool every time, so only now can a reply without "
        "tool_calls end the loop. Before sending, the app changed one thing, as adapted records: the "
        'model\'s null {path} goes as "" (OpenAI takes both, some compatible servers refuse null).',
        "zh": "第 8 条消息，回填：模型不记得上一次请求，所以应用把整段对话再发一次（{messages} 条消息）：先是带 tool_calls 的助手消息，再是每个 tool_call_id 各一条 "
        'role 为 tool 的消息（{ids}）。tool_choice 改回了 "auto"（之前是 {before}）：被强制时模型每次都得调用工具，所以只有现在，一次不带 '
        'tool_calls 的回复才能结束循环。发送之前应用改了一处，adapted 字段记着：模型写的 {path} 是 null，应用改成 "" 发出（OpenAI '
        "两种都接受，有些兼容服务器拒绝 null）。",
    },
    "ask.other": {
        "en": "A chat.completions request with {messages} message(s). Every request carries the whole conversation: "
        "the model keeps no state of its own.",
        "zh": "一次 chat.completions 请求，带 {messages} 条消息。每次请求都带着整段对话，模型自己不保存任何状态。",
    },
    "decide.one": {
        "en": "Message 4: the model does not answer, and it does not run anything: it asks for {name} with the "
        "arguments string {arguments} (finish_reason {finish}). The call's id, {id}, is what the result must quote.",
        "zh": "第 4 条消息：模型没有直接回答，也不执行任何东西，只是请求调用 {name}，参数是字符串 {arguments}"
        "（finish_reason 为 {finish}）。结果必须引用这个调用的 id {id}。",
    },
    "decide.one.finish": {
        "en": "Message 4: the model does not answer, and it does not run anything: it asks for {name} with "
        'the arguments string {arguments}, yet finish_reason is {finish}, not "tool_calls". The app '
        "goes by the tool_calls the message holds, not by finish_reason; the call's id, {id}, is what "
        "the result must quote.",
        "zh": "第 4 条消息：模型没有直接回答，也不执行任何东西，只是请求调用 {name}，参数是字符串 {arguments}，可 finish_reason 却是 {finish}，而不是 "
        '"tool_calls"。应用看的是消息里有没有 tool_calls，而不是 finish_reason；结果必须引用这个调用的 id {id}。',
    },
    "decide.parallel": {
        "en": "Parallel calls: one assistant message holds {count} tool_calls ({names}), each with its own id "
        "({ids}). The app may run them side by side; their results are told apart by tool_call_id, not by order.",
        "zh": "并行调用：一条助手消息里有 {count} 个 tool_calls（{names}），各有自己的 id（{ids}）。"
        "应用可以同时执行它们，结果靠 tool_call_id 区分，而不是靠顺序。",
    },
    "decide.parallel.finish": {
        "en": "Parallel calls: one assistant message holds {count} tool_calls ({names}), each with its own id "
        '({ids}), yet finish_reason is {finish}, not "tool_calls". The app goes by the tool_calls the '
        "message holds, not by finish_reason, and runs them; their results are told apart by "
        "tool_call_id, not by order.",
        "zh": "并行调用：一条助手消息里有 {count} 个 tool_calls（{names}），各有自己的 id（{ids}），可 finish_reason 却是 {finish}，而不是 "
        '"tool_calls"。应用看的是消息里有没有 tool_calls，而不是 finish_reason，照样执行它们；结果靠 tool_call_id 区分，而不是靠顺序。',
    },
    "answer.after_tools": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, "
        "with finish_reason {finish} and no tool_calls, so the loop ends. This call read "
        "{prompt_tokens} prompt tokens, and not only because the conversation was sent again: the "
        "{tools} tool definitions, {share} % of the request's bytes, were sent again too.",
        "zh": "第 9 条消息：看到工具结果后，模型写出回答“{content}”，finish_reason 为 {finish}，没有 "
        "tool_calls，循环到此结束。这次调用的输入词元数（prompt_tokens）为 {prompt_tokens}，不只是因为整段对话又发了一遍：{tools} "
        "个工具定义也又发了一遍，占请求字节的 {share}%。",
    },
    "answer.after_tools.no_share": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, "
        "with finish_reason {finish} and no tool_calls, so the loop ends. This call read "
        "{prompt_tokens} prompt tokens: both the whole conversation and every tool definition were sent "
        "again.",
        "zh": "第 9 条消息：看到工具结果后，模型写出回答“{content}”，finish_reason 为 {finish}，没有 "
        "tool_calls，循环到此结束。这次调用的输入词元数（prompt_tokens）为 {prompt_tokens}：整段对话和每个工具定义都又发了一遍。",
    },
    "answer.after_tools.no_usage": {
        "en": "Message 9: with the tool results in front of it, the model writes the answer, “{content}”, with "
        "finish_reason {finish}. No tool_calls this time: the loop ends here.",
        "zh": "第 9 条消息：看到工具结果后，模型写出回答“{content}”，finish_reason 为 {finish}。"
        "这一次没有 tool_calls，循环到此结束。",
    },
    "answer.after_tools.scripted": {
        "en": "Message 9, from the script: the answer “{content}” was written in the script before the run, not by a "
        "model reading the tool results. It comes back in the shape a model's answer has, with no tool call, so "
        "the app's loop ends here just as it would.",
        "zh": "第 9 条消息，来自脚本：回答“{content}”是运行之前就写在脚本里的，不是模型读了工具结果之后写的。它以模型回答的"
        "格式回来，不带工具调用，所以应用的循环照样在这里结束。",
    },
    "answer.at_once": {
        "en": "The model answers at once, without asking for any tool: “{content}” (finish_reason {finish}). It was "
        "offered tools but decided, or was told by tool_choice, not to use them.",
        "zh": "模型直接回答，没有请求任何工具：“{content}”（finish_reason 为 {finish}）。它拿到了工具，"
        "但自己决定不用，或者 tool_choice 不让它用。",
    },
    "answer.empty": {
        "en": "The model ends its turn with finish_reason {finish}, no tool_calls and empty content. The loop "
        "ends here, as after any reply without tool_calls, but there is no text to show the user.",
        "zh": "模型以 finish_reason {finish} 结束了这一轮，没有 tool_calls，content 也是空的。和任何不带 tool_calls "
        "的回复一样，循环到此结束，只是没有文字可以展示给用户。",
    },
    "response.other": {
        "en": "The model's HTTP response, recorded as it came. Look at choices and finish_reason to see what it "
        "decided.",
        "zh": "模型的 HTTP 响应，按原样记录。看 choices 和 finish_reason 就知道它做了什么决定。",
    },
}


# --- streamed responses ---------------------------------------------------------------------------------------------
_STREAM: Texts = {
    "chunk.role": {
        "en": 'The stream opens: here the first chunk only says who is speaking (delta.role "{role}"), with '
        "no text and no tool call yet. That is this recording, not a rule: a provider may put text or "
        "the start of a call in its first chunk too.",
        "zh": "流开始了：这里的第一个分块只说明这是谁的消息（delta.role 为 "
        "{role}），还没有文字，也没有工具调用。这只是这次录制的情形，并非规定：服务商也可以在第一个分块里就放进文字或工具调用的开头。",
    },
    "chunk.content": {
        "en": "A content chunk: delta.content brings the next piece of text, “{delta}”. The app appends it to "
        "what it has; a chunk may stop in the middle of a word.",
        "zh": "一个内容分块：delta.content 带来下一段文字“{delta}”。应用把它接在已收到的文字后面；分块可能在一个词的中间断开。",
    },
    "chunk.call_start": {
        "en": "A tool call begins in the stream: this chunk carries its id {id} and the function name {name}, "
        "and no arguments yet. Only a call's first chunk has the id; later chunks are matched to it by "
        "index.",
        "zh": "流里开始了一个工具调用：这个分块带来它的 id {id} 和函数名 {name}，还没有参数。只有第一个分块带 id，后面的分块靠 index 对应到它。",
    },
    "chunk.arguments": {
        "en": "An arguments fragment for tool call {index}: “{fragment}”. It is not valid JSON on its own; the app "
        "can parse the arguments only once the last fragment has arrived.",
        "zh": "第 {index} 个工具调用的参数片段：“{fragment}”。单看它不是合法 JSON，应用要等最后一个片段到了才能解析参数。",
    },
    "chunk.finish": {
        "en": "The finishing chunk: an empty delta and finish_reason {finish}, so the message is complete. "
        "The app did not wait for this to know a tool was called: a call shows in its first "
        'delta.tool_calls, and the app goes by what the deltas held, since some providers send "stop" '
        "beside tool_calls.",
        "zh": "结束分块：delta 为空，finish_reason 为 {finish}，消息到此完整。应用并不是到这里才知道有工具调用：调用在它的第一个 delta.tool_calls "
        '里就出现了，应用看的是各个 delta 带来了什么，因为有的服务商在 tool_calls 旁边也写 "stop"。',
    },
    "chunk.finish.delta": {
        "en": "The finishing chunk: its delta still brings a last piece, and finish_reason {finish} closes "
        "the message. The app did not wait for this to know a tool was called: a call shows in its "
        "first delta.tool_calls, and the app goes by what the deltas held, since some providers send "
        '"stop" beside tool_calls.',
        "zh": "结束分块：它的 delta 还带着最后一点内容，finish_reason 为 {finish}，消息到此结束。应用并不是到这里才知道有工具调用：调用在它的第一个 "
        'delta.tool_calls 里就出现了，应用看的是各个 delta 带来了什么，因为有的服务商在 tool_calls 旁边也写 "stop"。',
    },
    "chunk.finish.answer": {
        "en": "The finishing chunk: an empty delta and finish_reason {finish}, so the message is complete. No "
        "delta in this stream brought tool_calls, so the app was already reading an answer; it goes by "
        'what the deltas held, not by finish_reason alone, since some providers send "stop" beside '
        "tool_calls.",
        "zh": "结束分块：delta 为空，finish_reason 为 {finish}，消息到此完整。这个流里没有哪个 delta 带来 "
        "tool_calls，所以应用一直在接收的就是回答；它看的是各个 delta 带来了什么，而不只看 finish_reason，因为有的服务商在 tool_calls 旁边也写 "
        '"stop"。',
    },
    "chunk.finish.answer_delta": {
        "en": "The finishing chunk: its delta still brings a last piece, and finish_reason {finish} closes "
        "the message. No delta in this stream brought tool_calls, so the app was already reading an "
        "answer; it goes by what the deltas held, not by finish_reason alone, since some providers send "
        '"stop" beside tool_calls.',
        "zh": "结束分块：它的 delta 还带着最后一点内容，finish_reason 为 {finish}，消息到此结束。这个流里没有哪个 delta 带来 "
        "tool_calls，所以应用一直在接收的就是回答；它看的是各个 delta 带来了什么，而不只看 finish_reason，因为有的服务商在 tool_calls 旁边也写 "
        '"stop"。',
    },
    "chunk.usage": {
        "en": "The usage chunk comes after the finish, with no choices: {prompt_tokens} prompt and "
        "{completion_tokens} completion tokens for the whole streamed response. A stream reports its "
        "cost only at the end, and only when asked to.",
        "zh": "用量分块在结束分块之后到达，choices 为空：整个流式响应的输入词元数（prompt_tokens）为 {prompt_tokens}，completion_tokens 为 "
        "{completion_tokens}。流式响应只在最后、并且只在请求了时才报告用量。",
    },
    "chunk.done": {
        "en": "data: [DONE] closes the event stream. It is not JSON and carries nothing; it only tells the client "
        "library to stop reading.",
        "zh": "data: [DONE] 结束了整个事件流。它不是 JSON，也不携带任何内容，只是告诉客户端库停止读取。",
    },
    "chunk.other": {
        "en": "One event of a streamed response. A stream arrives as many small JSON events, which the app joins "
        "into one message.",
        "zh": "流式响应中的一个事件。流式响应由许多小的 JSON 事件组成，应用把它们拼成一条消息。",
    },
    "assembled.calls": {
        "en": "The app has joined the chunks into one assistant message: tool_calls {names} with the ids "
        "{ids}, finish_reason {finish}. It is the same message a response without streaming carries in "
        "one piece.",
        "zh": "应用把分块拼成了一条完整的助手消息：tool_calls 为 {names}，id 为 {ids}，finish_reason 为 {finish}。这和非流式响应一次带来的消息完全一样。",
    },
    "assembled.content": {
        "en": "The app has joined the content deltas into the answer, “{content}” (finish_reason {finish}). "
        "Streaming changed how the answer arrived, not what it says.",
        "zh": "应用把各个内容片段拼成了回答“{content}”（finish_reason 为 {finish}）。"
        "流式只改变了回答到达的方式，没有改变它的内容。",
    },
}


# --- steps 5 to 7: the call and its result --------------------------------------------------------------------------
_CALL: Texts = {
    "reverse.mcp": {
        "en": "Message 5, reverse translation: the app parses the arguments string {arguments} into a JSON object and "
        "hands the MCP client a call request for {name}. The tool_call_id {id} stays with the app; MCP never sees "
        "it.",
        "zh": "第 5 条消息，反向翻译：应用把参数字符串 {arguments} 解析成 JSON 对象，交给 MCP 客户端一个调用 {name} "
        "的请求。tool_call_id {id} 留在应用这边，MCP 看不到它。",
    },
    "reverse.direct": {
        "en": "Message 5 in direct mode, with no translation: there is no MCP call to turn the tool call into, so the "
        "app itself parses the arguments string {arguments} and will call {name} in its own process. The "
        "tool_call_id {id} is kept to label the result.",
        "zh": "直接调用模式下的第 5 条消息，没有翻译：这里没有要转换成的 MCP 调用，应用自己解析参数字符串 {arguments}，"
        "再在自己的进程里调用 {name}。tool_call_id {id} 被保留下来，用来标记结果。",
    },
    "arguments.not_json": {
        "en": "The arguments the model wrote for {name} are not valid JSON: {arguments}. The app calls nothing; it "
        "sends the error back as the result of {id}, so the model can try again.",
        "zh": "模型为 {name} 写的参数不是合法 JSON：{arguments}。应用不调用任何工具，而是把错误作为 {id} 的结果发回，"
        "让模型重试。",
    },
    "arguments.schema": {
        "en": "The arguments for {name} are valid JSON but do not fit its inputSchema: {arguments}. The app checks "
        "before calling, and sends the mismatch back as the result of {id}.",
        "zh": "{name} 的参数是合法 JSON，但不符合它的 inputSchema：{arguments}。应用在调用之前做了校验，"
        "并把不符之处作为 {id} 的结果发回。",
    },
    "call.request": {
        "en": "Message 6 on the wire: tools/call for {name} with id {id}, the arguments now a JSON object "
        "rather than a string. The server looks the tool up, checks the arguments and runs its "
        "function; the reply will carry id {id}.",
        "zh": "第 6 条消息发出：调用 {name} 的 tools/call，id 为 {id}，参数这次是 JSON 对象而不是字符串。服务器查到这个工具、校验参数之后运行它的函数，回复会带回 id "
        "{id}。",
    },
    "call.request.checked": {
        "en": "Message 6 on the wire: tools/call for {name} with id {id}, the arguments now a JSON object "
        "rather than a string. Before any function runs, the server must find the tool and accept the "
        "arguments; any reply to this request will carry id {id} and say what the server made of it.",
        "zh": "第 6 条消息发出：调用 {name} 的 tools/call，id 为 {id}，参数这次是 JSON "
        "对象而不是字符串。在任何函数运行之前，服务器得先找到这个工具并接受这些参数；对这个请求的任何回复都会带着 id {id}，并说明服务器怎么处理了它。",
    },
    "call.request.unlisted": {
        "en": "Message 6 on the wire: tools/call for {name} with id {id}, though {name} is not among the "
        "tools the server listed ({listed}). The app passes on the name the model wrote; before "
        "anything runs, the server must find a tool of that name, and any reply will carry id {id} and "
        "say what the server made of the request.",
        "zh": "第 6 条消息发出：调用 {name} 的 tools/call，id 为 {id}，可是服务器列出的工具（{listed}）里并没有 "
        "{name}。应用照原样传出模型写的名字；在任何东西运行之前，服务器得先找到这个名字的工具，任何回复都会带着 id {id}，并说明服务器怎么处理了这个请求。",
    },
    "call.request.in_flight": {
        "en": "tools/call for {name} (id {id}) leaves before the earlier calls are answered ({waiting} still "
        "open). Several requests can be in flight on one connection; each reply will be paired by its "
        "id, whatever the order.",
        "zh": "调用 {name} 的 tools/call（id {id}）发出时，还有 {waiting} 个调用没有收到回复。一条连接上可以同时有多个请求在途，无论先后，每个回复都靠 id 配对。",
    },
    "invoke.direct": {
        "en": "Direct mode: the app calls {function} itself, as an ordinary function call in its own process. No "
        "JSON-RPC frame and no server: compare this one hop with MCP's tools/call.",
        "zh": "直接调用模式：应用自己调用 {function}，就是自己进程里的一次普通函数调用。没有 JSON-RPC 帧，"
        "也没有服务器；把这一跳和 MCP 的 tools/call 对比一下。",
    },
    "invoke.direct.unknown": {
        "en": "Direct mode: the model asked for {function}, but the app has no function of that name (it has "
        "{listed}). Nothing is called: the lookup fails in the app's own process, and there is no "
        "server and no JSON-RPC error to say so.",
        "zh": "直接调用模式：模型要调用 {function}，但应用里没有这个名字的函数（只有 {listed}）。什么也没有被调用：查找在应用自己的进程里就失败了，这里既没有服务器，也没有 "
        "JSON-RPC 错误来说明这件事。",
    },
    "invoke.server": {
        "en": "Reported, not seen on a wire: the server says in its answer's _meta that this tools/call ran "
        "the real function {function}, timed by its own clock. This is the articles' message 6, rebuilt "
        "from that report when the answer came and placed before it, not the moment the function "
        "started.",
        "zh": "这是服务器的报告，不是在线路上看到的：服务器在回答的 _meta 里说，这次 tools/call 运行了真正的函数 {function}，时间按它自己的时钟。这就是文章里的第 6 "
        "条消息，是收到回答时根据报告重建、放在回答之前的，并不是函数开始运行的那一刻。",
    },
    "invoke.server.unnamed": {
        "en": "Reported, not seen on a wire: the server says in its answer's _meta that this tools/call ran a "
        "real function, timed by its own clock. This is the articles' message 6, rebuilt from that "
        "report when the answer came and placed before it, not the moment the function started.",
        "zh": "这是服务器的报告，不是在线路上看到的：服务器在回答的 _meta 里说，这次 tools/call 运行了一个真正的函数，时间按它自己的时钟。这就是文章里的第 6 "
        "条消息，是收到回答时根据报告重建、放在回答之前的，并不是函数开始运行的那一刻。",
    },
    "result.wire.ok": {
        "en": "The CallToolResult for id {id}: content blocks with the function's output, and isError {is_error}. "
        "The id says which request this answers.",
        "zh": "id {id} 的 CallToolResult：内容块里是函数的输出，isError 为 {is_error}。这个 id 说明它回答的是哪个请求。",
    },
    "result.wire.structured": {
        "en": "The CallToolResult for id {id}: content blocks with the function's output as text, the same "
        "value as JSON in structuredContent, and isError {is_error}. The id says which request this "
        "answers.",
        "zh": "id {id} 的 CallToolResult：内容块里是函数输出的文字，structuredContent 里是同一个值的 JSON，isError 为 {is_error}。这个 "
        "id 说明它回答的是哪个请求。",
    },
    "result.wire.failed": {
        "en": "The call failed, yet the server answers with an ordinary result: isError {is_error}, and the "
        "reason as text (“{text}”). This is a tool result, not a protocol error, so the model can read "
        "it and react.",
        "zh": "调用失败了，但服务器仍然给出普通的结果：isError 为 {is_error}，原因写在文字里（“{text}”）。这是工具结果而不是协议错误，模型能读到它并作出反应。",
    },
    "result.wire.raised": {
        "en": "The function ran and raised, yet the server answers with an ordinary result: isError "
        "{is_error}, and the reason as text (“{text}”). This is a tool result, not a protocol error, so "
        "the model can read it and react.",
        "zh": "函数运行了，但抛出了异常；服务器仍然给出普通的结果：isError 为 {is_error}，原因写在文字里（“{text}”）。这是工具结果而不是协议错误，模型能读到它并作出反应。",
    },
    "result.wire.invalid": {
        "en": "No function ran: the server checked the arguments against the inputSchema first, and they did "
        "not fit (“{text}”). It still answers with an ordinary result, isError {is_error}, not a "
        "protocol error, so the model can read why and call again.",
        "zh": "没有任何函数运行：服务器先用 inputSchema 校验参数，参数不符合（“{text}”）。它仍然给出普通的结果，isError 为 "
        "{is_error}，而不是协议错误，这样模型能读到原因并重新调用。",
    },
    "rpc.error": {
        "en": "A JSON-RPC error answers id {id}: code {code}, “{message}”. There is no result and no isError here: it "
        "is the request that was refused, not the tool's work that failed.",
        "zh": "id {id} 收到的是 JSON-RPC 错误：code 为 {code}，“{message}”。这里没有 result，也没有 isError："
        "被拒绝的是请求本身，而不是工具执行失败。",
    },
    "result.app.ok": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), "
        "which carries no tool_call_id, since MCP never sees one. The app turns its text content into "
        'the role "tool" message of the backfill.',
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_call_id，因为 MCP 从来看不到这个 "
        "id。应用把其中的文字内容变成回填时 role 为 tool 的消息。",
    },
    "result.app.structured": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), "
        "which carries no tool_call_id, since MCP never sees one. The app sends the text content as the "
        'role "tool" message and leaves structuredContent out, because a tool message carries text only '
        "and here the text already holds the same value.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_call_id，因为 MCP 从来看不到这个 "
        "id。应用把文字内容作为 role 为 tool 的消息发出，不发 structuredContent，因为工具消息只能带文字，而这里的文字已经包含同一个值。",
    },
    "result.app.structured_dropped": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), "
        "which carries no tool_call_id, since MCP never sees one. The app sends the text content as the "
        'role "tool" message and leaves structuredContent out, because a tool message carries text '
        "only: the model reads what the text says and nothing more.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_call_id，因为 MCP 从来看不到这个 "
        "id。应用把文字内容作为 role 为 tool 的消息发出，不发 structuredContent，因为工具消息只能带文字：模型读到的只有这段文字。",
    },
    "result.app.structured_sent": {
        "en": "Message 7 reaches the app: the MCP client hands over the CallToolResult (isError {is_error}), which "
        "carries no tool_call_id, since MCP never sees one. The host checked structuredContent against the "
        "tool's outputSchema and it fits, so, as this run chose, the app sends that JSON to the model as the "
        "tool's result in place of the text content.",
        "zh": "第 7 条消息到达应用：MCP 客户端交出 CallToolResult（isError 为 {is_error}），它不带 tool_call_id，"
        "因为 MCP 从来看不到这个 id。宿主先用工具的 outputSchema 校验了 structuredContent，结果相符；按这次运行的选择，"
        "应用把这段 JSON 而不是文字内容作为工具结果发给模型。",
    },
    "result.app.structured_refused": {
        "en": "Message 7 reaches the app, but the result's structuredContent does not fit the tool's outputSchema: "
        "{error}. The SDK's client refuses such a result, so the model gets an error saying so as the tool's "
        "result, not the content, and decides what to do.",
        "zh": "第 7 条消息到达应用，但结果里的 structuredContent 不符合工具的 outputSchema：{error}。SDK 的客户端拒收这样的"
        "结果，所以模型收到的工具结果是一条说明这一点的错误，而不是结果内容，再由模型决定怎么办。",
    },
    "result.app.failed": {
        "en": "The failed result reaches the app, isError {is_error}, and like any CallToolResult it carries "
        "no tool_call_id. The app does not stop: it passes the error text on as the tool's message, and "
        "the model decides what to do.",
        "zh": "失败的结果交到了应用手里（isError 为 {is_error}），和所有 CallToolResult 一样，它不带 "
        "tool_call_id。应用不会停下，而是把错误文字当作工具消息传下去，由模型决定怎么办。",
    },
    "result.app.rpc_error": {
        "en": "No CallToolResult came back: the client reports JSON-RPC error {code} to the app, and the app "
        "pairs it with tool_call_id {id} itself, since MCP never sees one. There is no isError to read; "
        "the app writes the tool message from the error, so the model can correct its call.",
        "zh": "没有收到 CallToolResult：客户端把 JSON-RPC 错误 {code} 报告给应用，由应用自己把它对应到 tool_call_id {id}，因为 MCP 从来看不到这个 "
        "id。这里没有 isError 可读，应用根据错误写出工具消息，让模型修正调用。",
    },
    "result.direct.ok": {
        "en": "The function returned, and the value is already in the app's hands: no CallToolResult, no "
        'content blocks. The app turns it into text for the role "tool" message quoting {id}.',
        "zh": "函数返回了，值直接就在应用手里：没有 CallToolResult，也没有内容块。应用把它转成文字，放进引用 {id} 的 role 为 tool 的消息。",
    },
    "result.direct.failed": {
        "en": "Calling the function raised an exception, which the app catches and sends as the text of the "
        'role "tool" message for {id} (“{error}”). A tool message has no error field like MCP\'s '
        "isError: only these words tell the model that the call failed.",
        "zh": "调用函数时抛出了异常；应用捕获了它，把它作为 {id} 的 role 为 tool 的消息的文字发出（“{error}”）。工具消息没有 MCP 的 isError "
        "那样的错误字段：只有这段文字能告诉模型调用失败了。",
    },
    "result.direct.unknown": {
        "en": "No function ran, as the app has none by the name the model wrote; it sends its own error as "
        'the text of the role "tool" message for {id} (“{error}”). A tool message has no error field '
        "like MCP's isError: only these words tell the model that the call failed.",
        "zh": "没有任何函数运行，因为应用里没有模型写的那个名字；应用把自己的错误作为 {id} 的 role 为 tool 的消息的文字发出（“{error}”）。工具消息没有 MCP 的 "
        "isError 那样的错误字段：只有这段文字能告诉模型调用失败了。",
    },
    "result.server": {
        "en": "The server reports, in its answer's _meta, that the function returned. It wraps the value in a "
        "CallToolResult (content blocks, for a tool with an outputSchema also structuredContent, and "
        "isError) and sends it to the client under the request's id.",
        "zh": "服务器在回答的 _meta 里报告：函数返回了。它把返回值包装成 CallToolResult（内容块；工具有 outputSchema 时还有 structuredContent；以及 "
        "isError），带着请求的 id 发给客户端。",
    },
    "result.server.failed": {
        "en": "The server reports, in its answer's _meta, that the function raised an exception. That report "
        "came with the server's answer to the tools/call, which is the next hop.",
        "zh": "服务器在回答的 _meta 里报告：函数抛出了异常。这份报告是随服务器对 tools/call 的回答一起来的，那个回答就是下一跳。",
    },
    "result.server.raised": {
        "en": "The server reports, in its answer's _meta, that the function raised {error}: “{message}”. That "
        "report came with the server's answer to the tools/call, which is the next hop.",
        "zh": "服务器在回答的 _meta 里报告：函数抛出了 {error}：“{message}”。这份报告是随服务器对 tools/call 的回答一起来的，那个回答就是下一跳。",
    },
    "result.other": {
        "en": "A tool's result on its way back to the app. The app will send it to the model as a tool message.",
        "zh": "工具的结果正在返回应用。应用会把它作为工具消息发给模型。",
    },
}


# --- step 10 and failures -------------------------------------------------------------------------------------------
_END: Texts = {
    "answer.shown": {
        "en": "Message 10: the app shows the answer, “{content}”. Count the model calls in this trace: one to decide "
        "in each tool round, and one more to write this.",
        "zh": "第 10 条消息：应用把回答展示给用户：“{content}”。数一数这次的模型请求：每轮工具调用需要一次来做决定，"
        "最后还要一次来写出这个回答。",
    },
    "answer.shown.empty": {
        "en": "Message 10: the app shows the answer, and it is empty, because the model's last reply had no "
        "text. Nothing failed, so no error line takes its place: the app passes on what the model wrote.",
        "zh": "第 10 条消息：应用展示回答，但它是空的，因为模型最后一次回复没有文字。这里没有出错，所以也没有错误说明来代替它：应用只是把模型写的内容交给用户。",
    },
    "end.model_failed": {
        "en": "The run ends without an answer because the model call just before it failed. The user gets one line "
        "saying why, in place of the answer; the trace keeps every hop up to the failure.",
        "zh": "本次运行没有回答，因为紧挨着的那次模型调用失败了。用户看到的是一行原因说明，而不是回答；"
        "记录保留了失败之前的每一跳。",
    },
    "end.server_failed": {
        "en": "The run ends without an answer: the server never returned the tool's result. Without a result there "
        "is nothing to send back to the model, so the app stops and says why in one line.",
        "zh": "本次运行没有回答：服务器始终没有返回工具的结果。没有结果就没有东西可以回填给模型，"
        "所以应用停下来，用一行文字说明原因。",
    },
    "end.server_failed.setup": {
        "en": "The run ends before the model was asked anything: the MCP server did not answer {method}, so "
        "the app has no tool list to send. It stops and says why in one line, in place of the answer.",
        "zh": "本次运行在询问模型之前就结束了：MCP 服务器没有回答 {method}，应用拿不到可以发送的工具清单。它停下来，用一行文字代替回答说明原因。",
    },
    "end.round_limit": {
        "en": "The run stops at its round limit: the model still asked for tools after the last round allowed. The "
        "limit keeps a model that never stops calling tools from running up requests without end.",
        "zh": "本次运行在轮数上限处停止：允许的最后一轮之后，模型仍在请求工具。"
        "这个上限防止一个不停调用工具的模型无休止地发出请求。",
    },
    "end.failed": {
        "en": "The run could not finish. The user gets one line instead of an answer, and the trace keeps every hop "
        "up to the failure.",
        "zh": "本次运行无法完成。用户看到一行说明而不是回答，记录保留了失败之前的每一跳。",
    },
    "model.401": {
        "en": "HTTP {status} from the model endpoint: the API key was refused (“{message}”). The model decided "
        "nothing; check the key, which the trace never stores.",
        "zh": "模型接口返回 HTTP {status}：API 密钥被拒绝（“{message}”）。模型什么也没有决定；请检查密钥，"
        "记录里从不保存它。",
    },
    "model.404": {
        "en": "HTTP {status}: the endpoint does not know this model or path (“{message}”). Check the model name and "
        "the base URL; nothing was charged.",
        "zh": "HTTP {status}：接口不认识这个模型或路径（“{message}”）。请检查模型名称和接口地址；这次没有产生费用。",
    },
    "model.429": {
        "en": "HTTP {status}: rate limited (“{message}”). The provider refuses for now, not for good: waiting, or "
        "sending requests less often, helps.",
        "zh": "HTTP {status}：触发了限流（“{message}”）。服务商只是暂时拒绝，稍等一会儿或降低请求频率即可。",
    },
    "model.5xx": {
        "en": "HTTP {status}: the provider failed on its side (“{message}”). The request may well be fine; the same "
        "request a little later may succeed.",
        "zh": "HTTP {status}：服务商自身出了错（“{message}”）。请求本身可能没有问题，过一会儿重发同样的请求也许就能成功。",
    },
    "model.5xx.refused": {
        "en": "HTTP {status}, yet the provider's own words (“{message}”) say it refused this request: its validator "
        "rejected a field, and some servers report that as a failure of their own. Sent again unchanged, the "
        "request fails the same way; the field it names is what must change.",
        "zh": "HTTP {status}，但服务商自己的说明（“{message}”）表明它拒绝了这个请求：它的校验器拒收了某个字段，"
        "有些服务器把这种情况报告成自身的错误。原样重发只会以同样的方式失败；需要改的是它指出的那个字段。",
    },
    "model.status": {
        "en": "HTTP {status} from the model endpoint, with no answer to use. The body is recorded as it came, and "
        "the run stops here.",
        "zh": "模型接口返回 HTTP {status}，没有可用的回答。响应内容按原样记录，本次运行到此停止。",
    },
    "model.deadline": {
        "en": "No complete answer within {limit_s} s, the time allowed for one model call. The app stops waiting on "
        "its own; whatever the model might still send is not used.",
        "zh": "模型在 {limit_s} 秒内没有给出完整回答（这是一次模型调用的时限）。应用主动停止等待，"
        "之后模型再发来什么都不会被使用。",
    },
    "model.too_large": {
        "en": "The answer grew past {limit_bytes} bytes, the cap for one model response, and reading stopped. The cap "
        "keeps one response from filling the app's memory.",
        "zh": "回答超过了单次回答 {limit_bytes} 字节的上限，读取已停止。这个上限防止一次回答占满应用的内存。",
    },
    "model.malformed": {
        "en": "An answer came, but the app cannot read it: {reason}. The app refuses it rather than guess what the "
        "model meant.",
        "zh": "回答到了，但应用无法读取它：{reason}。应用宁可拒绝，也不去猜模型的意思。",
    },
    "model.unreachable": {
        "en": "The model endpoint could not be reached ({error}): no HTTP answer came at all. Check the address and "
        "the network.",
        "zh": "无法连接到模型接口（{error}）：没有收到任何 HTTP 回答。请检查地址和网络。",
    },
    "server.closed": {
        "en": "No answer came: the server's connection closed while the call was open (code {code}). The client gives "
        "up by itself, and there is no result to hand on.",
        "zh": "没有收到回复：调用还没有结束，服务器的连接就关闭了（code 为 {code}）。客户端自行放弃，没有结果可以交出。",
    },
    "server.closed.setup": {
        "en": "No answer to {method} came: the server's connection closed before any tool was listed or "
        "called. The client gives up by itself, and the app has no tools to offer the model.",
        "zh": "没有收到 {method} 的回复：在列出或调用任何工具之前，服务器的连接就关闭了。客户端自行放弃，应用也就没有工具可以提供给模型。",
    },
    "server.timeout": {
        "en": "No answer in the time allowed: the client stopped waiting for the server (code {code}). A server that "
        "hangs would hold the run for ever, so the client keeps its own limit.",
        "zh": "在限定时间内没有回复：客户端不再等待服务器（code 为 {code}）。卡住的服务器会让运行永远等下去，"
        "所以客户端有自己的时限。",
    },
    "server.timeout.setup": {
        "en": "No answer to {method} in the time allowed: the client stopped waiting for the server before "
        "any tool was listed or called. A server that never answers would hold the run for ever, so the "
        "client keeps its own limit.",
        "zh": "在限定时间内没有收到 {method} 的回复：客户端不再等待服务器，此时还没有列出或调用任何工具。永远不回答的服务器会让运行一直等下去，所以客户端有自己的时限。",
    },
    "server.http": {
        "en": "An HTTP exchange with the MCP server failed ({method}). Over Streamable HTTP the client POSTs "
        "each of its messages, and the server's come back in that POST's response, as JSON or an SSE "
        "stream, so HTTP failures show up beside JSON-RPC ones.",
        "zh": "与 MCP 服务器的一次 HTTP 交换失败了（{method}）。在 HTTP 传输上，客户端用 POST 发出自己的每条消息，服务器的消息则在这个 POST 的响应里返回（一段 "
        "JSON 或一个 SSE 流），所以 HTTP 失败会和 JSON-RPC 错误出现在一起。",
    },
    "server.broke": {
        "en": "The server broke the protocol here ({error}): what it sent cannot be taken as JSON-RPC. The "
        "client gives up on the connection rather than guess.",
        "zh": "服务器在这里违反了协议（{error}）：它发来的内容不能当作 JSON-RPC。客户端选择放弃这条连接，而不是去猜。",
    },
    "failure.other": {
        "en": "Something went wrong here, and it is recorded where it happened. The payload's error and message say "
        "what and why.",
        "zh": "这里出了问题，它被记录在发生的位置。载荷中的 error 和 message 说明了是什么、为什么。",
    },
    "replay.divergence": {
        "en": "The replay departs from the recording here (request {request_number}): what the app sent, or what a "
        "tool returned, is not what was recorded. From here on the recording no longer answers for this run.",
        "zh": "回放在这里偏离了录制（第 {request_number} 次请求）：应用发出的内容或工具返回的结果与录制时不同。"
        "从这里开始，录制不再能代表这次运行。",
    },
    "replay.divergence.tool": {
        "en": "The replay departs from the recording here: the result for tool_call_id {tool_call_id} is not what was "
        "recorded. A tool that answers differently makes every later step differ too.",
        "zh": "回放在这里偏离了录制：tool_call_id 为 {tool_call_id} 的结果与录制时不同。"
        "工具的回答一变，之后的每一步也都会跟着变。",
    },
    "replay.divergence.plain": {
        "en": "The replay departs from the recording here: what the app sent, or what a tool returned, is not what was "
        "recorded. The payload's divergence says where.",
        "zh": "回放在这里偏离了录制：应用发出的内容或工具返回的结果与录制时不同。载荷中的 divergence 说明了差在哪里。",
    },
}


_HOSTED: Texts = {
    "hosted.prepare": {
        "en": "Before any question, the server has built its tool list from decorated functions: {tools}, each entry "
        "with {fields}. In hosted MCP the app does not fetch this list: the provider's MCP client does, with "
        "tools/list, and what of it the provider's model is shown is the provider's choice, not the app's. The app "
        "learns of it only afterwards, from what the provider's response reports (an mcp_list_tools item, the "
        "mcp_tool_use blocks of the calls).",
        "zh": "提问之前，服务器已经根据带装饰器的函数生成了工具清单：{tools}，每一项含有 {fields}。在托管 MCP 里，"
        "应用自己不去取这份清单：服务商的 MCP 客户端用 tools/list 把它取走，其中哪些内容交给服务商的模型，"
        "由服务商决定，而不是应用。应用要到事后才从服务商响应里的报告知道它（mcp_list_tools 项，调用的 mcp_tool_use 内容块）。",
    },
    "responses.hosted.ask": {
        "en": "Message 3, hosted: the app's request to the Responses API holds no function definitions, only one tool "
        "of type mcp naming the server {server} at {url}, with require_approval {approval}; from here on the provider, "
        "not the app, is the MCP client. Its headers carry a credential for that server, which the provider reads and "
        "sends on (the trace shows it redacted), so it should open no more than these tools need. The server must be "
        "reachable from the provider's network at that URL, and it must check that credential itself.",
        "zh": "第 3 条消息（托管 MCP）：应用发给 Responses 接口的请求里没有函数定义，只有一个 type 为 mcp 的工具，"
        "指向服务器 {server}（{url}），require_approval 为 {approval}；从这里开始，MCP 客户端是服务商，而不是应用。"
        "它的 headers 里带着访问这台服务器的凭据，服务商能看到它并代为发送（本记录里已经隐去），所以这份凭据能打开的"
        "不应超过这些工具所需。服务器必须能从服务商的网络按这个 URL 访问到，并且要自己校验这份凭据。",
    },
    "responses.hosted.ask.open": {
        "en": "Message 3, hosted: the app's request to the Responses API holds no function definitions, only one tool "
        "of type mcp naming the server {server} at {url}, with require_approval {approval}; from here on the provider "
        "is the MCP client. The tool has no headers, so the provider sends the server no credential: whoever can reach "
        "that URL can call its tools, which is safe only for a server meant to be open.",
        "zh": "第 3 条消息（托管 MCP）：应用发给 Responses 接口的请求里没有函数定义，只有一个 type 为 mcp 的工具，"
        "指向服务器 {server}（{url}），require_approval 为 {approval}；从这里开始，MCP 客户端是服务商。这个工具没有 "
        "headers，服务商不会向服务器出示任何凭据：谁能访问这个 URL，谁就能调用它的工具，只有本来就该公开的服务器才能这样用。",
    },
    "messages.hosted.ask": {
        "en": "Message 3, hosted: the app's request to the Messages API names the server {server} at {url} in "
        "mcp_servers and puts one mcp_toolset tool for it in tools, fields of the beta {beta} named in the "
        "anthropic-beta header; from here on the provider is the MCP client. The server entry's authorization_token "
        "is a credential the provider reads and sends on (the trace shows it redacted), so it should open no more than "
        "these tools need. The server must be reachable from the provider's network at that URL and check the token "
        "itself.",
        "zh": "第 3 条消息（托管 MCP）：应用发给 Messages 接口的请求在 mcp_servers 里指明服务器 {server}（{url}），"
        "并在 tools 里为它放了一个 mcp_toolset 工具；这些字段属于 anthropic-beta 请求头里写明的 {beta}。从这里开始，"
        "MCP 客户端是服务商。服务器条目里的 authorization_token 是一份凭据，服务商能看到它并代为发送（本记录里已经隐去），"
        "所以它能打开的不应超过这些工具所需；服务器必须能从服务商的网络按这个 URL 访问到，并自己校验这个令牌。",
    },
    "messages.hosted.ask.open": {
        "en": "Message 3, hosted: the app's request to the Messages API names the server {server} at {url} in "
        "mcp_servers and puts one mcp_toolset tool for it in tools, fields of the beta {beta} named in the "
        "anthropic-beta header; from here on the provider is the MCP client. The server entry has no "
        "authorization_token, so the provider shows the server no credential: whoever can reach that URL can call its "
        "tools, which is safe only for a server meant to be open.",
        "zh": "第 3 条消息（托管 MCP）：应用发给 Messages 接口的请求在 mcp_servers 里指明服务器 {server}（{url}），"
        "并在 tools 里为它放了一个 mcp_toolset 工具；这些字段属于 anthropic-beta 请求头里写明的 {beta}。服务器条目里"
        "没有 authorization_token，服务商不会向服务器出示任何凭据：谁能访问这个 URL，谁就能调用它的工具，只有本来就该"
        "公开的服务器才能这样用。",
    },
    "responses.hosted.approval": {
        "en": "The provider stops before calling: its response holds {items}. The model chose {name} with "
        "{arguments}, but require_approval asks the app first, so instead of an mcp_call the response carries an "
        "mcp_approval_request with id {id}. The provider's MCP client makes no tools/call for it until the app answers "
        "in its next request.",
        "zh": "服务商在调用之前停了下来：响应里有 {items}。模型选择了 {name}，参数为 {arguments}，但 require_approval "
        "要求先问应用，所以响应里带的不是 mcp_call，而是一个 id 为 {id} 的 mcp_approval_request。在应用用下一个请求"
        "作答之前，服务商的 MCP 客户端不会为它发送 tools/call。",
    },
    "responses.hosted.approve": {
        "en": "Message 8's place is taken by the app's answer to the provider: an mcp_approval_response item with "
        "approval_request_id {id} and approve {approve}, among the {items} items in input. Approval is the app's last "
        "word on each call: only now may the provider's MCP client send tools/call, and an app (or its user) that "
        "says no stops the call before it reaches the server.",
        "zh": "第 8 条消息的位置上，是应用对服务商的答复：一个 mcp_approval_response 项，approval_request_id 为 {id}，"
        "approve 为 {approve}，在 input 的 {items} 项之中。批准是应用对每次调用的最后决定权：直到现在，服务商的 MCP "
        "客户端才可以发送 tools/call；应用（或它的用户）如果拒绝，调用就到不了服务器。",
    },
    "responses.hosted.deny": {
        "en": "The app says no: an mcp_approval_response item with approval_request_id {id} and approve {approve}, "
        "among the {items} items in input. Approval is the app's last word: the provider's MCP client must not make "
        "the call it asked about, and the model has to answer without it.",
        "zh": "应用拒绝了：一个 mcp_approval_response 项，approval_request_id 为 {id}，approve 为 {approve}，在 input "
        "的 {items} 项之中。批准是应用的最后决定权：服务商的 MCP 客户端不得进行它请求批准的那次调用，模型只能不用这个"
        "工具来回答。",
    },
    "responses.hosted.answer": {
        "en": "One response carries the whole tool loop, as the provider reports it: {items}. Between the app's request "
        "and this answer the provider's MCP client listed the tools (message 2) and called {names}, and the provider "
        "handed the result to its model (messages 5 to 8), while the app sent no MCP message at all. The answer: "
        "“{content}” (status {status}).",
        "zh": "一个响应就装下了整个工具循环，这是服务商的报告：{items}。在应用发出请求和收到这个回答之间，服务商的 MCP "
        "客户端列出了工具（第 2 条消息）、调用了 {names}，服务商又把结果交给了自己的模型（第 5 到 8 条消息），而应用"
        "一条 MCP 消息也没有发。回答是：“{content}”（status 为 {status}）。",
    },
    "responses.hosted.answer.unlisted": {
        "en": "The response reports calls but no listing: {items}. The provider's MCP client called {names} and the "
        "provider handed the result to its model (messages 5 to 8), using a tool list it does not report again here. "
        "The answer: “{content}” (status {status}).",
        "zh": "这个响应报告了调用，却没有报告列出工具：{items}。服务商的 MCP 客户端调用了 {names}，服务商把结果交给了"
        "自己的模型（第 5 到 8 条消息），用的工具清单这里没有再报告一次。回答是：“{content}”（status 为 {status}）。",
    },
    "responses.hosted.answer.approved": {
        "en": "The call the app approved has been made: the response holds {items}, and its mcp_call names "
        "approval_request_id {id}. Between the request that approved it and this answer, the provider's MCP client "
        "sent tools/call and the provider handed the result to its model (messages 6 to 8). The answer: “{content}” "
        "(status {status}).",
        "zh": "应用批准的那次调用已经完成：响应里有 {items}，其中的 mcp_call 写明了 approval_request_id {id}。在批准它"
        "的那个请求和这个回答之间，服务商的 MCP 客户端发送了 tools/call，服务商把结果交给了自己的模型（第 6 到 8 条"
        "消息）。回答是：“{content}”（status 为 {status}）。",
    },
    "responses.hosted.answer.failed": {
        "en": "The response holds {items}, and its mcp_call for {name} has status {call_status} and an error of type "
        "{error} where the output would be: the tool failed on the server. The model read that failure at the provider "
        "and wrote its answer anyway: “{content}”. The app sent no tools/call and learns of the failure only from "
        "this report.",
        "zh": "响应里有 {items}，其中调用 {name} 的 mcp_call 的 status 为 {call_status}，本该放 output 的地方是一个 "
        "type 为 {error} 的 error：工具在服务器上失败了。模型在服务商那里读到了这个失败，照样写出了回答：“{content}”。"
        "应用没有发送 tools/call，只能从这份报告里得知这次失败。",
    },
    "responses.hosted.answer.denied": {
        "en": "The app's no was kept: the response holds {items} and no mcp_call, so the provider's MCP client made no "
        "tools/call for the call the app refused. The model answered without the tool: “{content}” (status {status}).",
        "zh": "应用的拒绝得到了遵守：响应里有 {items}，没有 mcp_call，服务商的 MCP 客户端没有为被拒绝的调用发送 "
        "tools/call。模型没有用这个工具就回答了：“{content}”（status 为 {status}）。",
    },
    "responses.hosted.answer.no_call": {
        "en": "The response holds {items} and no mcp_call: the provider's model answered without any tool being called "
        "at the provider. The answer: “{content}” (status {status}).",
        "zh": "响应里有 {items}，没有 mcp_call：服务商的模型没有在服务商那里调用任何工具就回答了。回答是：“{content}”"
        "（status 为 {status}）。",
    },
    "messages.hosted.answer": {
        "en": "The response's content holds {blocks}: an mcp_tool_use block for {name} (id {id}), the mcp_tool_result "
        "block that answers it under the same id in tool_use_id, then the model's text. The connector ran the loop at "
        "the provider inside this one request (messages 5 to 8), and no block here reports the listing of the tools, "
        "so that tools/list is seen only where a recorder saw the frames. The answer: “{content}” (stop_reason {stop}).",
        "zh": "响应的 content 里有 {blocks}：一个调用 {name} 的 mcp_tool_use 内容块（id {id}），一个用 tool_use_id "
        "带着同一个 id 回答它的 mcp_tool_result 内容块，然后是模型的文字。连接器在这一个请求之内就在服务商那里跑完了"
        "循环（第 5 到 8 条消息），这里没有哪个内容块报告列出工具的那一步，所以那次 tools/list 只有在记录器看到的帧里"
        "才看得到。回答是：“{content}”（stop_reason 为 {stop}）。",
    },
    "messages.hosted.answer.listed": {
        "en": "The response's content holds {blocks}: an mcp_tool_listing block with the tools the provider's client "
        "listed, an mcp_tool_use block for {name} (id {id}) and the mcp_tool_result that answers it. The connector ran "
        "the loop at the provider inside this one request (messages 2 and 5 to 8). The answer: “{content}” "
        "(stop_reason {stop}).",
        "zh": "响应的 content 里有 {blocks}：一个 mcp_tool_listing 内容块列出服务商的客户端取到的工具，一个调用 {name} "
        "的 mcp_tool_use 内容块（id {id}），以及回答它的 mcp_tool_result。连接器在这一个请求之内就在服务商那里跑完了"
        "循环（第 2 条和第 5 到 8 条消息）。回答是：“{content}”（stop_reason 为 {stop}）。",
    },
    "messages.hosted.answer.failed": {
        "en": "The response's content holds {blocks}: the mcp_tool_use block for {name} (id {id}) is answered by an "
        "mcp_tool_result with is_error true, so the tool failed on the server. The model read that failure at the "
        "provider and answered anyway: “{content}” (stop_reason {stop}). The app learns of the failure only from "
        "these blocks.",
        "zh": "响应的 content 里有 {blocks}：调用 {name} 的 mcp_tool_use 内容块（id {id}）得到的 mcp_tool_result 里 "
        "is_error 为 true，工具在服务器上失败了。模型在服务商那里读到了这个失败，照样回答：“{content}”（stop_reason 为 "
        "{stop}）。应用只能从这些内容块里得知这次失败。",
    },
    "messages.hosted.answer.no_call": {
        "en": "The response's content holds {blocks} and no mcp_tool_use: the provider's model answered without "
        "calling a tool of the server. The answer: “{content}” (stop_reason {stop}).",
        "zh": "响应的 content 里有 {blocks}，没有 mcp_tool_use：服务商的模型没有调用服务器的工具就回答了。回答是："
        "“{content}”（stop_reason 为 {stop}）。",
    },
    "hosted.tools_list.request": {
        "en": "The provider's MCP client asks for tools/list (id {id}). The list goes to the provider, not to the app: "
        "the provider decides which of these tools its model is offered (narrowed by allowed_tools in Responses, by "
        "the toolset's configs in Messages).",
        "zh": "服务商的 MCP 客户端请求 tools/list（id {id}）。清单交给的是服务商而不是应用：提供给模型哪些工具由服务商"
        "决定（Responses 里可以用 allowed_tools 限定，Messages 里用工具集的 configs 限定）。",
    },
    "hosted.call.request": {
        "en": "Message 6, sent by the provider's MCP client: tools/call for {name} with id {id}. The model chose this "
        "call at the provider, and the app neither translated nor sent it; the server's reply will carry id {id}.",
        "zh": "第 6 条消息，由服务商的 MCP 客户端发出：调用 {name} 的 tools/call，id 为 {id}。这次调用是模型在服务商"
        "那里决定的，应用既没有转换它，也没有发送它；服务器的回复会带回 id {id}。",
    },
    "answer.shown.hosted": {
        "en": "Message 10: the app shows the answer, “{content}”. To get it the app sent {requests} request(s) to "
        "the model API and not one MCP message; how many times the provider ran its own model inside them is not "
        "in the trace.",
        "zh": "第 10 条消息：应用把回答展示给用户：“{content}”。为了得到它，应用向模型接口发了 {requests} 个请求，"
        "没有发过一条 MCP 消息；服务商在这些请求里运行了几次自己的模型，记录里看不到。",
    },
    "reported.list.request": {
        "en": "The provider says its MCP client asked the server {server} for its tools: this hop stands for that "
        "tools/list, rebuilt from the response's {item} item. The app sent no tools/list, so when the request went, "
        "how long it took, whether it was retried and which headers went with it are not known to the app.",
        "zh": "服务商报告：它的 MCP 客户端向服务器 {server} 请求了工具清单；这一跳代表那次 tools/list，是根据响应里的 "
        "{item} 项重建的。应用自己没有发送 tools/list，所以请求何时发出、用了多久、是否重试、带了哪些请求头，应用都"
        "无从得知。",
    },
    "reported.list": {
        "en": "The provider says its MCP client got these tools from the server {server}: {tools}. The list is the "
        "provider's to use: the app translates nothing and hands nothing to the model, and it saw no frame carrying "
        "the list.",
        "zh": "服务商报告：它的 MCP 客户端从服务器 {server} 取到了这些工具：{tools}。这份清单归服务商使用：应用既不转换"
        "也不交给模型，也没有看到装着它的那一帧。",
    },
    "reported.call": {
        "en": "The provider says its MCP client called {name} on the server {server}. The app sent no tools/call and "
        "ran no tool loop: the model's decision and the call both happened at the provider, inside one request of the "
        "app's. This hop is rebuilt from the {item} the provider wrote; timing, retries and headers are not in it.",
        "zh": "模型服务商报告：它的 MCP 客户端在服务器 {server} 上调用了 {name}。应用没有发送 tools/call，也没有运行"
        "工具循环：模型的决定和这次调用都发生在服务商那里，包含在应用的一次请求之内。这一跳是根据服务商写出的 {item} "
        "重建的，其中没有时间、重试和请求头。",
    },
    "reported.call.approved": {
        "en": "The provider says its MCP client called {name} after the approval {approval} the app gave. The model "
        "chose the call in one request of the app's, and the provider made it only in the next, once the app's "
        "mcp_approval_response said yes. Rebuilt from the {item}: when it was sent, retries and headers are not in it.",
        "zh": "服务商报告：在应用给出批准 {approval} 之后，它的 MCP 客户端调用了 {name}。模型在应用的一次请求里选定了"
        "这次调用，服务商却要等应用在下一个请求里用 mcp_approval_response 同意之后才去调用。这一跳根据 {item} 重建，"
        "何时发出、是否重试、带了哪些请求头都不在其中。",
    },
    "reported.result": {
        "en": "The provider reports the server's answer: {output}. The app reads it in the response that already "
        "carries the model's answer: handing the result back to the model (message 8) happened at the provider. "
        "Rebuilt from the {item}; the app saw no frame of it.",
        "zh": "模型服务商报告了服务器的回答：{output}。应用是在已经带着模型回答的同一个响应里读到它的：把结果交回模型"
        "（第 8 条消息）发生在服务商那里。这一跳根据 {item} 重建，应用没有看到那一帧。",
    },
    "reported.result.only": {
        "en": "The provider reports the server's answer: {output}. It went to the provider's model, not to the app's "
        "code: the app reads it only in this report, rebuilt from the {item}, with no timing or headers.",
        "zh": "服务商报告了服务器的回答：{output}。它交给的是服务商的模型，而不是应用的代码：应用只能在这份根据 {item} "
        "重建的报告里读到它，没有时间，也没有请求头。",
    },
    "reported.result.error": {
        "en": "The provider reports that the tool failed: “{output}”. The model saw the failure at the provider and "
        "answered anyway; the app learns of it only from the {item} in the response.",
        "zh": "模型服务商报告工具执行失败：“{output}”。模型在服务商那里看到了这个失败并照样给出了回答；应用只能从响应里的 "
        "{item} 得知这件事。",
    },
    "reported.result.error.typed": {
        "en": "The provider reports that the tool failed: “{output}”, an error of type {error} in the {item}. The "
        "model saw the failure at the provider and answered anyway; the app learns of it only from this report.",
        "zh": "服务商报告工具执行失败：“{output}”，在 {item} 里是一个 type 为 {error} 的 error。模型在服务商那里看到了"
        "这个失败并照样回答；应用只能从这份报告里得知。",
    },
    "reported.result.error.only": {
        "en": "The provider reports that the tool failed: “{output}”. The failure went to the provider's model, not to "
        "the app: the app learns of it only from the {item} in the response.",
        "zh": "服务商报告工具执行失败：“{output}”。这个失败交给的是服务商的模型，而不是应用：应用只能从响应里的 {item} "
        "得知。",
    },
    "reported.mismatch": {
        "en": "The provider's report disagrees with the frame a recorder saw on the wire ({mismatch}). The frame is "
        "what crossed; the report is what the provider says crossed.",
        "zh": "服务商的报告与记录器在线路上看到的帧不一致（{mismatch}）。帧是真实经过线路的内容；报告只是服务商的说法。",
    },
}


"""Hosted MCP: the exchanges a model provider reports it made as the MCP client."""


NOTES: Texts = {
    "hosted.observed.mock": {
        "en": " This frame passes between the provider's MCP client and the server, never through the app: the "
        "recorder sees it only because the mock provider runs on this machine. With a real provider it crosses "
        "between the provider's network and your server, and you see it only by recording your own server "
        "(mcp-flow proxy-http).",
        "zh": "这一帧在服务商的 MCP 客户端和服务器之间传递，从不经过应用：记录器能看到它，只是因为模拟服务商就运行在"
        "本机。换成真实的服务商，它在服务商的网络和你的服务器之间传递，只有记录你自己的服务器（mcp-flow proxy-http）才能"
        "看到。",
    },
    "hosted.observed": {
        "en": " This frame passes between the provider's MCP client and the server, never through the app: it is in "
        "the trace because a recorder stood in front of the server (mcp-flow proxy-http), not because the app saw it.",
        "zh": "这一帧在服务商的 MCP 客户端和服务器之间传递，从不经过应用：它出现在记录里，是因为服务器前面放了记录器"
        "（mcp-flow proxy-http），而不是因为应用看到了它。",
    },
    "relist.request": {
        "en": " The server said its tool list changed (notifications/tools/list_changed, which carries no list), "
        "so the client fetches the whole list again in the middle of the run.",
        "zh": "服务器刚说过它的工具清单变了（notifications/tools/list_changed 不带清单），所以客户端在运行中途重新请求整份清单。",
    },
    "relist.list": {
        "en": " This list comes after the server said its tool list changed: new in it is {added}.",
        "zh": "这份清单是在服务器说工具清单变了之后拿到的：新出现的是 {added}。",
    },
    "relist.list.none": {
        "en": " This list comes after the server said its tool list changed, yet no tool in it is new.",
        "zh": "这份清单是在服务器说工具清单变了之后拿到的，但里面没有新出现的工具。",
    },
    "relist.translate": {
        "en": " The app translates the list again because the server said it changed: {added}, new in it, can be "
        "offered to the model from the app's next request on; the requests already sent offered the old list.",
        "zh": "应用之所以再翻译一遍，是因为服务器说清单变了：新出现的 {added} 从应用的下一个请求起才能提供给模型；已经发出的请求里是旧清单。",
    },
    "relist.translate.none": {
        "en": " The app translates the list again because the server said it changed, though no tool in it is new.",
        "zh": "应用之所以再翻译一遍，是因为服务器说清单变了，尽管里面没有新出现的工具。",
    },
    "hosted.observed.short": {
        "en": " Like every frame of this session, it passes between the provider's MCP client and the server; the app "
        "never sees it.",
        "zh": "和这次会话的每一帧一样，它在服务商的 MCP 客户端和服务器之间传递，应用看不到它。",
    },
    "reported.paired": {
        "en": " A recorder did see this same exchange on the wire, as hop {observed}, and the report agrees with it.",
        "zh": "记录器确实在线路上看到了同一次交换，就是第 {observed} 跳，报告和它一致。",
    },
}


"""Sentences said after a situation's text (`Situation.note`), filled from the same values: one fact that holds for
hops of many situations."""


FALLBACK = "fallback"


"""The text for a hop no situation describes: a file may hold anything."""


TEXTS: Texts = {
    **_PREPARE_AND_ASK,
    **_SETUP,
    **_FRAMES,
    **_MODEL,
    **_STREAM,
    **_CALL,
    **_END,
    **API_TEXTS,
    **_HOSTED,
    **ASKING_TEXTS,
    FALLBACK: {
        "en": "A message crossing between two parts of the system.",
        "zh": "系统两个部分之间传递的一条消息。",
    },
}


"""Every situation's text, by its key (`flow.text.teaching.situations.situation` picks the key)."""
