"""Interface text in Chinese and English."""

from __future__ import annotations

from flow import API, Lang, api_words

TEXT: dict[str, dict[Lang, str]] = {
    "app_title": {"zh": "大模型如何调用工具 · MCP 全流程", "en": "How a model uses tools · the MCP flow"},
    "language": {"zh": "语言 / Language", "en": "Language / 语言"},
    "page_run": {"zh": "运行", "en": "Run"},
    "page_step": {"zh": "逐步讲解", "en": "Step through"},
    "page_compare": {"zh": "对比", "en": "Compare"},
    "page_hops": {"zh": "全部消息", "en": "Hops"},
    "offline_note": {
        "zh": "默认使用离线模拟模型：无需网络，无需 API 密钥。",
        "en": "The offline mock model is the default: no network, no API key.",
    },
    # run page
    "run_title": {"zh": "运行一个问题", "en": "Run a question"},
    "question": {"zh": "问题", "en": "Question"},
    "examples": {"zh": "示例问题", "en": "Example questions"},
    "mode": {"zh": "模式", "en": "Mode"},
    "mode_mcp": {"zh": "MCP（客户端 + 服务器）", "en": "MCP (client + server)"},
    "mode_direct": {"zh": "直接调用模式（函数调用，无 MCP）", "en": "Direct mode (function calling, no MCP)"},
    "mode_hosted": {"zh": "托管 MCP（服务商是 MCP 客户端）", "en": "Hosted MCP (the provider is the MCP client)"},
    "mode_client_mcp": {
        "zh": "MCP 客户端在应用里：应用列出工具、发送 tools/call，每一帧都经过它。",
        "en": "The MCP client is in the app: the app lists the tools and sends tools/call, and every frame passes through it.",
    },
    "mode_client_direct": {
        "zh": "没有 MCP 客户端：应用拿着手写的工具定义，在自己的进程里调用函数。",
        "en": "No MCP client: the app holds hand-written schemas and calls its own functions.",
    },
    "mode_client_hosted": {
        "zh": "MCP 客户端在模型服务商那里：应用只在请求里写明服务器，服务商去列出和调用工具，应用读到的是它的报告。",
        "en": "The MCP client is at the model provider: the app names the server in its request, the provider lists and "
        "calls the tools, and the app reads its report.",
    },
    "hosted_needs_api": {
        "zh": "托管 MCP 是 Responses 和 Anthropic Messages 的功能：Chat Completions 没有让服务商去连接 MCP 服务器的字段。"
        "请选择 Responses 或 Anthropic Messages。",
        "en": "Hosted MCP is a feature of Responses and Anthropic Messages: Chat Completions has no field that sends the "
        "provider to an MCP server. Choose Responses or Anthropic Messages.",
    },
    "hosted_server_help": {
        "zh": "服务商必须能访问到这台服务器：离线模拟服务商连接本机回环地址上的演示服务器；真实服务商需要一台配置了它能访问的 "
        "URL 的服务器。",
        "en": "The provider must reach this server: the offline mock provider connects to the demo server on loopback; a "
        "real provider needs a configured server with a URL it can reach.",
    },
    "require_approval": {
        "zh": "需要批准（require_approval: always）",
        "en": "Require approval (require_approval: always)",
    },
    "require_approval_help": {
        "zh": "服务商在每次调用工具之前停下来，在响应里放一个 mcp_approval_request，等应用在下一个请求里回答。",
        "en": "Before each call the provider stops, puts an mcp_approval_request in its response and waits for the "
        "app's answer in its next request.",
    },
    "approval_answer": {"zh": "应用的回答", "en": "The app's answer"},
    "approval_approve": {"zh": "批准（approve: true）", "en": "Approve (approve: true)"},
    "approval_deny": {"zh": "拒绝（approve: false）", "en": "Deny (approve: false)"},
    "approval_messages": {
        "zh": "Anthropic 的 MCP 连接器在请求里没有要求批准的字段：服务商直接调用工具。",
        "en": "Anthropic's MCP connector has no approval field in its request: the provider calls the tools without asking.",
    },
    "api": {"zh": "模型接口", "en": "Model API"},
    **{f"api_{api}": {"zh": api_words(api).name, "en": api_words(api).name} for api in API},
    "api_help": {
        "zh": "同一个问题、同样的工具，用哪种线路格式发给模型：OpenAI 的 Chat Completions 或 Responses，或 Anthropic 的 Messages。",
        "en": "The wire format the same question and tools go to the model in: OpenAI Chat Completions or Responses, "
        "or Anthropic Messages.",
    },
    "previous_response": {"zh": "回填时用 previous_response_id", "en": "Backfill with previous_response_id"},
    "previous_response_help": {
        "zh": "打开：回填只发新的 function_call_output 项，并用 previous_response_id 指向上一次响应；关闭：整个 input 再发一次。",
        "en": "On: the backfill sends only the new function_call_output items and names the previous response by "
        "previous_response_id. Off: the whole input goes again.",
    },
    "api_scripted": {
        "zh": "脚本模型只会说 Chat Completions：请选择离线模拟模型或服务商来试 {api}。",
        "en": "The scripted model speaks Chat Completions only: choose the offline mock or a provider to try {api}.",
    },
    "model": {"zh": "模型", "en": "Model"},
    "backend_mock": {"zh": "离线模拟模型", "en": "Offline mock model"},
    "backend_provider": {"zh": "真实模型服务", "en": "Real provider"},
    "backend_scripted": {"zh": "脚本模型（由你决定）", "en": "Scripted (you decide)"},
    "scripted_help": {
        "zh": "不需要模型和 Key：你替模型决定调用哪个工具、用什么参数，或直接回答。请求仍经过真实的 openai SDK。",
        "en": "No model, no key: you decide which tool the model calls and with which arguments, or that it answers directly. Requests still go through the real openai SDK.",
    },
    "scripted_decision": {"zh": "模型的决定", "en": "The model's decision"},
    "answer_directly": {"zh": "直接回答，不调用工具", "en": "Answer directly, no tool"},
    "call_tool": {"zh": "调用 {name}", "en": "Call {name}"},
    "scripted_arguments": {"zh": "参数（JSON）", "en": "Arguments (JSON)"},
    "scripted_answer": {
        "zh": "最终回答（留空则根据工具结果生成）",
        "en": "Final answer (empty: made from the tool results)",
    },
    "scripted_bad_args": {"zh": "参数不是 JSON 对象：{error}", "en": "The arguments are not a JSON object: {error}"},
    "server_unreachable": {"zh": "无法列出服务器的工具：{error}", "en": "Cannot list the server's tools: {error}"},
    "context": {"zh": "资源与提示模板", "en": "Resources and prompts"},
    "resources": {"zh": "读取资源，作为上下文交给模型", "en": "Read resources and give them to the model as context"},
    "prompt": {"zh": "使用服务器的提示模板（代替问题）", "en": "Use a server prompt (instead of the question)"},
    "no_prompt": {"zh": "不使用", "en": "none"},
    "prompt_arg": {"zh": "提示模板参数 {name}", "en": "Prompt argument {name}"},
    "mock_behaviour": {"zh": "模拟模型的行为", "en": "Mock behaviour"},
    "mock_all": {"zh": "每种行为做什么（全部 {n} 种）", "en": "What each behaviour does (all {n})"},
    "preset": {"zh": "预设", "en": "Preset"},
    "base_url": {"zh": "Base URL", "en": "Base URL"},
    "model_name": {"zh": "模型名称", "en": "Model name"},
    "api_key": {"zh": "API 密钥（不会保存）", "en": "API key (never stored)"},
    "key_from_env": {"zh": "留空则使用环境变量 {env}", "en": "Leave empty to use ${env}"},
    "options": {"zh": "选项", "en": "Options"},
    "tool_choice": {"zh": "tool_choice", "en": "tool_choice"},
    "named_function": {"zh": "指定函数名", "en": "Function name"},
    "choice_named": {"zh": "指定函数", "en": "named"},
    "local": {"zh": "（本地）", "en": " (local)"},
    "parallel": {"zh": "允许并行工具调用", "en": "Parallel tool calls"},
    "strict": {"zh": "strict 模式（严格 Schema）", "en": "strict schemas"},
    "stream": {"zh": "流式输出", "en": "Stream"},
    "adapt": {
        "zh": "回填时发送所有兼容服务器都接受的形式",
        "en": "Backfill in a form every compatible server accepts",
    },
    "adapt_help": {
        "zh": '开：助手消息的 `content` 为 `null` 时改成 `""` 再发送，并在那一跳的 `adapted` 里记下；关：原样发回模型写的内容，'
        "用来在课堂上展示某些服务器会拒绝它。",
        "en": 'On: a `null` content in the assistant message goes out as `""`, and the hop\'s `adapted` says so; off: the '
        "conversation goes back exactly as the model wrote it, to show a class which servers refuse it.",
    },
    "provider_note": {"zh": "提示：{note}", "en": "Note: {note}"},
    "era": {"zh": "MCP 协议时代", "en": "MCP protocol era"},
    "era_handshake": {"zh": "握手时代（initialize）", "en": "handshake (initialize)"},
    "era_modern": {"zh": "无状态时代（server/discover，2026-07-28）", "en": "modern (server/discover, 2026-07-28)"},
    "transport": {"zh": "传输方式", "en": "Transport"},
    "transport_memory": {"zh": "进程内", "en": "memory"},
    "transport_stdio": {"zh": "stdio 子进程", "en": "stdio"},
    "max_rounds": {"zh": "最多工具轮数", "en": "Max tool rounds"},
    "keep_warm": {"zh": "保持 stdio 服务器运行（更快）", "en": "Keep the stdio server running (faster)"},
    "keep_warm_help": {
        "zh": "之后的运行复用同一个 MCP 会话，因此不再显示握手",
        "en": "Later runs reuse one MCP session, so they show no handshake",
    },
    "server_fault": {"zh": "让演示服务器出故障", "en": "Make the demo server fail"},
    "fault_none": {"zh": "不", "en": "no"},
    "fault_die": {"zh": "调用时崩溃", "en": "die on tools/call"},
    "fault_hang": {"zh": "调用时卡住（5 秒超时）", "en": "hang on tools/call (5 s timeout)"},
    "run_button": {"zh": "运行", "en": "Run"},
    "running": {"zh": "正在运行……", "en": "Running…"},
    "running_paced": {
        "zh": "正在运行……每 {s} 秒显示一跳（记录里保存的是真实时间）",
        "en": "Running… one hop shown every {s} s (the trace keeps the real times)",
    },
    "run_done": {"zh": "完成：{hops} 跳，用时 {ms} 毫秒", "en": "Done: {hops} hops in {ms} ms"},
    "run_failed": {
        "zh": "运行未完成：{hops} 跳，用时 {ms} 毫秒",
        "en": "The run did not complete: {hops} hops in {ms} ms",
    },
    "pace": {"zh": "逐跳显示（每跳 {s} 秒）", "en": "Show the hops one by one ({s} s each)"},
    "pace_help": {
        "zh": "进程内的演示几毫秒就跑完了。打开后，每一跳在这里停留 {s} 秒再显示下一跳，方便全班看清顺序；"
        "运行本身不会变慢，记录里的时间仍是真实的。来得比这更慢的跳（真实的模型、stdio 服务器）一到就显示。",
        "en": "The in-process demo finishes in milliseconds. With this on, each hop stays {s} s before the next is "
        "shown, so a class can follow the order; the run itself is not slowed, and the trace keeps the real times. "
        "Hops that come slower than that (a real model, a stdio server) are shown as they arrive.",
    },
    "run_hops": {"zh": "这次运行的 {n} 跳", "en": "The run's {n} hops"},
    "outcome_open": {"zh": "在“逐步讲解”中从第 {n} 跳打开", "en": "Open Step through at hop {n}"},
    "outcome_start": {"zh": "从第 1 跳开始", "en": "Start at hop 1"},
    "no_key": {
        "zh": "这个服务需要 API 密钥：请输入，或设置环境变量 {env}。",
        "en": "This provider needs an API key: type it, or set ${env}.",
    },
    "no_key_typed": {"zh": "这个服务需要 API 密钥：请输入。", "en": "This provider needs an API key: type it."},
    "server_token_withheld": {
        "zh": "环境变量 {env} 中的 MCP 服务器凭据不会随请求发给这个 Base URL：托管 MCP 里服务商要用它访问服务器，而配置好的凭据只发给配置了 API 密钥的地址。请求里仍会写明这台服务器，只是不带凭据。",
        "en": "${env}, the MCP server's credential, is not sent to this base URL: in hosted MCP the provider uses it to reach the server, and a configured credential goes only to a URL set up for a key. The request still names the server, without it.",
    },
    "key_withheld": {
        "zh": "环境变量 {env} 中的 Key 不会发给这个 Base URL：环境中的 Key 只发给为它配置的地址。要发送 Key，请在上面输入。",
        "en": "${env} is not sent to this base URL: a key from the environment goes only to the URL it was set up for. Type a key to send one.",
    },
    # the run page: a run on the demo server's tools that ask back, and the form the user answers
    "asks": {"zh": "用会反问的工具", "en": "Use the tools that ask back"},
    "asks_help": {
        "zh": "演示服务器多出三个工具，它们要先向客户端要到东西才能给出结果：weather_here 问用户在哪个城市（`elicitation`，"
        "下面会出现表单），forecast_in_words 请宿主的模型把预报说成一句话（`sampling`），class_notes 先问客户端"
        "共享了哪些文件夹（`roots`）再读笔记。",
        "en": "The demo server gets three more tools that must get something from the client before they can "
        "answer: "
        "weather_here asks the user which city they are in (elicitation: a form appears below), forecast_in_words "
        "asks the host's model to put the forecast in one sentence (sampling), class_notes asks which folders the "
        "client shares (roots) before it reads a note.",
    },
    "asks_roots": {
        "zh": "客户端共享的文件夹（`roots`）：演示自带的课堂笔记。这个页面不让访客选本机文件夹。",
        "en": "The folder the client shares (its roots): the class notes that come with the demo. This page lets "
        "no visitor choose a folder on this machine.",
    },
    "asks_examples": {"zh": "会让服务器反问的问题", "en": "Questions that make the server ask back"},
    "asks_kind_elicitation": {"zh": "问用户", "en": "asks you"},
    "asks_kind_sampling": {"zh": "问模型", "en": "asks the model"},
    "asks_kind_roots": {"zh": "问文件夹", "en": "asks for folders"},
    "asks_kind_sampling_tools": {"zh": "问模型，还带上自己的工具", "en": "asks the model, with its own tool"},
    "elicit_timeout": {"zh": "表单最多等待（秒）", "en": "The form waits at most (s)"},
    "elicit_timeout_help": {
        "zh": "到时没人回答，宿主就替用户选“取消”，运行继续。",
        "en": "If nobody answers by then, the host cancels for the user (action: cancel) and the run goes on.",
    },
    "run_asks_user": {
        "zh": "运行暂停：MCP 服务器在等用户回答（已有 {hops} 跳，点开查看）",
        "en": "The run is paused: the MCP server waits for the user's answer ({hops} hops so far; open to see them)",
    },
    "ask_title": {"zh": "MCP 服务器在问你", "en": "The MCP server asks you"},
    "ask_no_message": {"zh": "（服务器没有写问题）", "en": "(the server wrote no message)"},
    "ask_url": {
        "zh": "服务器请你打开这个地址。本页不会替你打开；“接受”表示你同意去打开。",
        "en": "The server asks you to open this address. This page does not open it; Accept says you agree to.",
    },
    "sampling_title": {
        "zh": "MCP 服务器想用你的模型（sampling）",
        "en": "The MCP server asks to use your model (sampling)",
    },
    "sampling_why": {
        "zh": "这次请求要花你的模型额度，所以先给你看：在你批准之前什么都不会发给模型。MCP 规范要求客户端先告诉用户，"
        "让人能查看、修改或拒绝每一个 sampling 请求（有人参与其中）。",
        "en": "This request spends your model, so you see it first: nothing goes to the model before you approve. The "
        "MCP specification wants the client to tell the user first, so that a person can review, edit or deny each "
        "sampling request (human in the loop).",
    },
    "sampling_system": {"zh": "systemPrompt（服务器给的系统提示）", "en": "systemPrompt (the server's system prompt)"},
    "sampling_message": {"zh": "消息 {n} · {role}", "en": "Message {n} · {role}"},
    "sampling_fixed": {
        "zh": "这条消息含工具调用、工具结果或图片，只能看不能改。",
        "en": "This message holds a tool's use or result, or an image: shown, not editable.",
    },
    "sampling_tools": {
        "zh": "服务器随请求提供给模型的工具（宿主不会运行它们）：{tools}",
        "en": "Tools the server offers the model with it (the host runs none of them): {tools}",
    },
    "sampling_max_tokens": {
        "zh": "maxTokens（模型最多写多少 token）",
        "en": "maxTokens (the most the model may write)",
    },
    "sampling_approve": {"zh": "批准并发送", "en": "Approve and send"},
    "sampling_deny": {"zh": "拒绝", "en": "Deny"},
    "sampling_actions": {
        "zh": "批准：按上面的内容（含你的修改）发给模型。拒绝：服务器收到 JSON-RPC 错误 -1"
        "（说明用户拒绝了这个请求），模型不会被调用。",
        "en": "Approve sends what is above (with your edits) to the model. Deny answers the server with JSON-RPC error "
        "-1 (User rejected sampling request); the model is not called.",
    },
    "approve_sampling": {"zh": "本次运行批准所有 sampling 请求", "en": "Approve every sampling request of this run"},
    "approve_sampling_help": {
        "zh": "服务器的 sampling 请求会花你的模型额度，默认每次都先问你。打开后本次运行不再询问，"
        "轨迹的设置里会写明是运行者批准的（approve_sampling）。离线模拟模型不花钱，它的请求总是自动批准。",
        "en": "A server's sampling request spends your model, so by default you are asked each time. On, this run asks "
        "no more, and the trace's settings say the operator approved (approve_sampling). The offline mock model "
        "costs nothing: its requests are always approved without asking.",
    },
    "sampling_free": {
        "zh": "离线模拟模型不花钱：服务器的 sampling 请求会自动批准，轨迹设置里的 sampling_approval 会写明这一点。",
        "en": "The offline mock model costs nothing: the server's sampling requests are approved without asking, "
        "and the trace's settings say sampling_approval: free.",
    },
    "ask_accept": {"zh": "接受", "en": "Accept"},
    "ask_decline": {"zh": "拒绝", "en": "Decline"},
    "ask_cancel": {"zh": "取消", "en": "Cancel"},
    "ask_actions": {
        "zh": "接受：把填好的表单发回服务器。拒绝：明确说不。取消：不作选择，关掉这个问题。",
        "en": "Accept sends the filled form back to the server. Decline says no. Cancel dismisses the question "
        "without a choice.",
    },
    "ask_countdown": {
        "zh": "{s} 秒内没人回答，宿主就替用户取消。",
        "en": "If nobody answers within {s} s, the host cancels for the user.",
    },
    "ask_missing": {"zh": "请先填写：{fields}", "en": "Fill in first: {fields}"},
    # step page
    "step_title": {"zh": "逐步讲解", "en": "Step through"},
    "source": {"zh": "来源", "en": "Source"},
    "source_sample": {"zh": "示例", "en": "Sample"},
    "source_upload": {"zh": "上传文件", "en": "Upload a file"},
    "source_run": {"zh": "最近一次运行", "en": "Last run"},
    "no_run_yet": {
        "zh": "还没有运行过。请到“运行”页运行一个问题。",
        "en": "Nothing has run yet. Run a question on the Run page.",
    },
    "no_hops": {
        "zh": "这份运行记录里没有任何一跳，没有可展示的内容。",
        "en": "This trace has no hops: there is nothing to show.",
    },
    "upload_failed": {"zh": "无法打开这份运行记录文件", "en": "Cannot open this trace file"},
    "upload_nothing_shown": {
        "zh": "这个文件没有打开，所以这里什么也不显示。请在左侧栏换一个文件。",
        "en": "This file was not opened, so nothing is shown here. Choose another file in the sidebar.",
    },
    "upload_choose": {
        "zh": "请在左侧栏选择一个运行记录文件（JSON，或 JSON-RPC 日志 JSONL），上传后在这里逐步讲解。",
        "en": "Choose a trace file in the sidebar (JSON, or a JSON-RPC log as JSONL); it is stepped through here.",
    },
    "parts_note": {
        "zh": "这份运行记录有 {hops:,} 跳，一次画不下：查看器分 {parts} 段展示，每段最多 {most:,} 跳。",
        "en": "This trace has {hops:,} hops, more than the viewer holds at once: it shows them in {parts} parts "
        "of at most {most:,} hops.",
    },
    "part": {"zh": "分段", "en": "Part"},
    "part_hops": {"zh": "第 {first:,}–{last:,} 跳", "en": "hops {first:,}–{last:,}"},
    "lesson": {"zh": "课堂", "en": "Lesson"},
    "questions_toggle": {"zh": "课堂提问：先猜，再揭晓", "en": "Questions: predict, then reveal"},
    "questions_help": {
        "zh": "走到带问题的一跳时，先显示问题和选项，揭晓后再显示这一跳。",
        "en": "At a hop with a question, the question and its choices come first; the hop is shown once revealed.",
    },
    "questions_count": {"zh": "这份运行记录有 {n} 个问题", "en": "This trace has {n} questions"},
    "questions_none": {"zh": "这份运行记录没有问题文件", "en": "This trace has no questions file"},
    "captions_toggle": {"zh": "餐厅比喻（第一堂课）", "en": "Restaurant captions (a first lesson)"},
    "room_head": {"zh": "课堂房间", "en": "Classroom room"},
    "room_present": {"zh": "投屏到房间", "en": "Present to a room"},
    "room_present_help": {
        "zh": "学生扫码或打开链接，在自己的设备上跟着你一步步看；回答课堂提问",
        "en": "Students scan or open the link and follow each step on their own screens, and answer the questions",
    },
    "room_close": {"zh": "关闭房间", "en": "Close the room"},
    "room_link": {"zh": "学生打开：{link}", "en": "Students open: {link}"},
    "room_follows": {
        "zh": "房间跟着这一页：学生现在看到的是这个记录（同一个链接）",
        "en": "The room follows this page: students now see this trace (the same link)",
    },
    "room_loopback": {
        "zh": "本应用只在本机监听，其他设备打不开这个链接：用 `mcp-flow app --lan`（在克隆的仓库里是 `./dev.sh app --lan`）启动，教室里的设备才能加入",
        "en": "This app listens on this machine only, so other devices cannot open the link: start it with "
        "`mcp-flow app --lan` (in a clone, `./dev.sh app --lan`) for a classroom",
    },
    "room_not_served": {
        "zh": "房间需要应用的房间路由：用 `mcp-flow app` 或 `./dev.sh app` 启动",
        "en": "Rooms need the app's room routes: start it with `mcp-flow app` or `./dev.sh app`",
    },
    "room_failed": {"zh": "无法打开房间", "en": "Cannot open a room"},
    "questions_upload": {
        "zh": "问题文件（可选，NAME.questions.json）",
        "en": "Questions file (optional, NAME.questions.json)",
    },
    "questions_failed": {"zh": "无法使用这个问题文件", "en": "Cannot use this questions file"},
    "upload": {
        "zh": "上传运行记录文件（JSON），或导入 JSON-RPC 日志（JSONL）、OTLP JSON",
        "en": "Upload a trace file (JSON), or import a JSON-RPC log (JSONL) or OTLP JSON",
    },
    "mcp_server": {"zh": "MCP 服务器", "en": "MCP server"},
    "mcp_server_help": {
        "zh": "只能选择启动本应用的人配置好的服务器（见 README：第三方与不可信的 MCP 服务器）",
        "en": "Only servers configured by whoever started the app (see the README: third-party and untrusted MCP servers)",
    },
    "server_typed": {"zh": "输入命令…", "en": "Type a command…"},
    "server_command": {"zh": "stdio 服务器命令（不经过 shell）", "en": "stdio server command (no shell)"},
    "server_command_bad": {"zh": "无法解析这条命令：{error}", "en": "Cannot read this command: {error}"},
    "server_config_bad": {"zh": "服务器配置文件无法使用：{error}", "en": "The servers file cannot be used: {error}"},
    "transport_help": {
        "zh": "进程内：服务器与应用在同一进程；stdio 子进程：服务器是子进程，通过标准输入输出通信",
        "en": "memory: the server runs in this process; stdio: the server is a subprocess talking over stdin/stdout",
    },
    "why": {"zh": "发生了什么", "en": "What happens"},
    "download_trace": {"zh": "下载运行记录（JSON）", "en": "Download trace (JSON)"},
    "download_html": {"zh": "下载网页（HTML）", "en": "Download page (HTML)"},
    "download_svg": {"zh": "下载时序图（SVG）", "en": "Download diagram (SVG)"},
    "download_otlp": {"zh": "下载 OpenTelemetry 追踪（OTLP JSON）", "en": "Download OpenTelemetry spans (OTLP JSON)"},
    "overview": {"zh": "全程概览", "en": "Overview"},
    "whole_trace": {"zh": "显示全部（不截取窗口）", "en": "Show all hops (no window)"},
    # compare
    "compare_title": {"zh": "直接调用模式与 MCP 对比", "en": "Direct mode vs MCP"},
    "diagram_alt": {"zh": "{name} 的时序图", "en": "Sequence diagram of {name}"},
    "trace_a": {"zh": "A", "en": "A"},
    "trace_b": {"zh": "B", "en": "B"},
    "run_both": {"zh": "运行两次", "en": "Run two"},
    "run_both_go": {"zh": "用这个问题运行这两种", "en": "Run both on this question"},
    "compare_pair": {"zh": "比较什么", "en": "What to compare"},
    "pair_modes": {"zh": "直接调用 vs MCP（Chat Completions）", "en": "direct vs MCP (Chat Completions)"},
    "pair_chat_responses": {"zh": "Chat Completions vs Responses（MCP）", "en": "Chat Completions vs Responses (MCP)"},
    "pair_chat_messages": {
        "zh": "Chat Completions vs Anthropic Messages（MCP）",
        "en": "Chat Completions vs Anthropic Messages (MCP)",
    },
    "pair_responses_messages": {
        "zh": "Responses vs Anthropic Messages（MCP）",
        "en": "Responses vs Anthropic Messages (MCP)",
    },
    "no_times": {
        "zh": "这里不比较耗时：单次运行的毫秒数主要是噪声（同一个问题连续运行，结果相差数倍），MCP 的握手又总落在先运行的那一次上。值得比较的耗时是多次运行的中位数及其波动范围，一次记录给不出来。",
        "en": "No times here: one run's milliseconds are mostly noise (the same question run twice differs several-fold), and MCP's handshake falls on whichever run comes first. A time worth comparing is the median of many runs with its spread, which one recording cannot give.",
    },
    "figures": {"zh": "数字对比", "en": "Figures"},
    "by_step": {"zh": "逐条消息对照（消息编号同原文）", "en": "Message by message (numbered as in the articles)"},
    "chart_bytes": {"zh": "发给模型的字节数", "en": "Bytes sent to the model"},
    "tool_cost_heading": {"zh": "工具越多，每次请求越贵", "en": "More tools, dearer requests"},
    "tool_cost_caption": {
        "zh": "用模拟模型现场跑出来的数字。演示服务器的 4 个工具：直接调用模式第 1 次请求 {direct} 个输入词元，"
        "经 MCP 也是 {mcp} 个：模型收到的函数定义一模一样。有 40 个工具的 ops-demo 服务器：4 个工具时 {fewest_tokens} 个，"
        "{most} 个工具时 {most_tokens} 个，而且每次请求都要再付一遍。MCP 改变的是谁来维护这些定义，不是模型收到多少。",
        "en": "Figures from mock runs made just now. The demo server's 4 tools: direct mode's first request has {direct} "
        "prompt tokens, through MCP {mcp}: the model gets the same function definitions. The 40-tool ops-demo server: "
        "{fewest_tokens} at 4 tools, {most_tokens} at {most}, paid again on every request. MCP changes who maintains "
        "the definitions, not how much the model is sent.",
    },
    "compare_view": {"zh": "对比方式", "en": "Compare"},
    "view_pair": {"zh": "两份记录", "en": "two runs"},
    "view_ways": {"zh": "四种方式", "en": "four ways"},
    "ways_heading": {"zh": "给模型工具的四种方式", "en": "Four ways to give a model a tool"},
    "ways_load": {"zh": "载入四个示例", "en": "Load the four samples"},
    "ways_pick": {"zh": "方式 {n}", "en": "Way {n}"},
    "ways_table": {"zh": "对照表（数字来自记录）", "en": "The table (figures from the traces)"},
    "ways_route": {"zh": "十条消息在哪里发生", "en": "Where each of the ten messages happens"},
    "ways_diagrams": {"zh": "四张图，同一比例", "en": "The four diagrams, at one scale"},
    # presenter mode of the pages without the viewer (Compare, Hops): the viewer's words and keys
    "presenter_on": {"zh": "演示模式（P）", "en": "Presenter (P)"},
    "presenter_off": {"zh": "退出演示（Esc）", "en": "Leave presenter (Esc)"},
    "presenter_help": {
        "zh": "隐藏侧栏，放大文字，适合投影；按 P 进入或退出，Esc 退出。",
        "en": "Hides the sidebar and enlarges the text for a projector; P turns it on or off, Esc leaves it.",
    },
    # hops
    "hops_title": {"zh": "全部消息", "en": "All hops"},
    "filter_actor": {"zh": "参与者", "en": "Actor"},
    "filter_kind": {"zh": "类型", "en": "Kind"},
    "filter_phase": {"zh": "阶段", "en": "Phase"},
    "search": {"zh": "在内容中搜索", "en": "Search in payloads"},
    "select_hint": {"zh": "点选一行查看完整 JSON。", "en": "Select a row to see its full JSON."},
    "shown": {"zh": "显示 {k} / {n} 跳", "en": "{k} of {n} hops shown"},
    "trace": {"zh": "运行记录", "en": "Trace"},
    "choose": {"zh": "请选择", "en": "Choose options"},
    "run_title_item": {"zh": "第 {n} 次运行 · {mode} · {question}", "en": "#{n} {mode} · {question}"},
    "mode_short_mcp": {"zh": "MCP", "en": "MCP"},
    "mode_short_direct": {"zh": "直接调用模式", "en": "direct mode"},
    "mode_short_hosted": {"zh": "托管 MCP", "en": "hosted MCP"},
    "download_table": {"zh": "下载此表（CSV）", "en": "Download this table (CSV)"},
}


COLUMNS: dict[str, str] = {
    "seq": "序号",
    "step": "步骤",
    "phase": "阶段",
    "from": "从",
    "to": "到",
    "kind": "类型",
    "summary": "摘要",
    "ms": "毫秒",
    "bytes": "字节",
    "tokens": "词元",
    "figure": "指标",
    "what": "消息",
    "hops A": "A 跳数",
    "hops B": "B 跳数",
    "wire frames A": "A 线路帧",
    "wire frames B": "B 线路帧",
    "only in A": "仅 A 有",
    "only in B": "仅 B 有",
    "tool definitions": "工具定义",
    "rest of the request": "请求的其余部分",
}


def column_names(lang: Lang) -> dict[str, str]:
    """Table headers in the interface language (the data keeps its English keys)."""
    return COLUMNS if lang == "zh" else {}


def t(key: str, lang: Lang, **values: object) -> str:
    text = TEXT[key][lang]
    return text.format(**values) if values else text
