"""Run one question live, watch each hop arrive, then open it in the step-through view."""

import json
import shlex
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import streamlit as st

import flow
from flow import (
    ASKING_QUESTIONS,
    DEMO,
    EXAMPLE_QUESTIONS,
    MOCK_MODELS,
    PRESETS,
    KeyChoice,
    Lang,
    ScriptError,
    ServerConfigError,
    ServerSpec,
    Turn,
    allow_typed_commands,
    built_in_servers,
    configured_servers,
    key_env_for,
    key_for,
    mock_model_does,
    mock_model_label,
    mock_models_help,
    parse_script,
    server_for,
)
from flow_ui.asking import ask_form
from flow_ui.i18n import t
from flow_ui.live import PACE_S, LiveRun, PageAnswerer, hop_line, in_thread
from flow_ui.state import add_run, all_traces, server_listing, state, warm_session
from flow_ui.text import plain
from flow_ui.view import remembered, remembered_multiselect, remembered_value
from weather_demo.tools import DIRECT_TOOL_SCHEMAS

app = state()
lang: Lang = app.lang
st.title(t("run_title", lang))
TYPED = "(typed)"  # the choice that lets a command be typed, offered only when the app was started allowing it
LIVE_LIST_PX = 260  # the live list's height: the question, the toggle and the newest hops fit in 720 px
OUTCOME_ICONS = {
    "clean": ":material/check_circle:",
    "answered_after_problem": ":material/warning:",
    "unknown": ":material/help:",  # what the recording did not see (a merge without the app's exit code)
}


def open_at(key: str, index: int, *, switch: bool = True) -> None:
    """Step through shows this run from hop `index` (0-based); with `switch`, the page goes there now."""
    app.step_key, app.index = key, index
    st.query_params.clear()  # a sample or hop another page's URL named is not where Step through opens now
    app.choices["step_source"] = "run"
    for code in ("zh", "en"):  # the step page's source radio starts again, from "run"
        st.session_state.pop(f"step_source_{code}", None)
    if switch:
        st.switch_page("app_pages/step.py")


def offered_tools(mode: str, spec: ServerSpec) -> list[dict[str, Any]] | None:
    """The tools the model will be offered, in MCP's shape; None when the server cannot be asked."""
    if mode == "direct":
        return [
            {"name": f["function"]["name"], "inputSchema": f["function"]["parameters"]} for f in DIRECT_TOOL_SCHEMAS
        ]
    listing, error = server_listing(spec, "handshake")
    if error:
        st.error(t("server_unreachable", lang, error=plain(error)), icon=":material/error:")
        return None
    return listing["tools"]


def skeleton(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments to start from: each required or defaulted property, with its default or an empty value."""
    empty = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
    required = set(schema.get("required") or [])
    return {
        name: prop.get("default", empty.get(prop.get("type"), ""))
        for name, prop in (schema.get("properties") or {}).items()
        if name in required or "default" in prop
    }


def scripted_turns(tools: list[dict[str, Any]] | None, lang: Lang) -> tuple[Turn, ...] | None:
    """The scripted model's decision as turns: one tool call (or none), then the answer. None: not ready."""
    if tools is None:
        return None
    by_name = {tool["name"]: tool for tool in tools}
    decision = remembered(
        st.selectbox,
        t("scripted_decision", lang),
        ["", *by_name],
        key="scripted_decision",
        help=t("scripted_help", lang),
        format_func=lambda n: t("call_tool", lang, name=n) if n else t("answer_directly", lang),
    )
    turns: list[dict[str, Any]] = []
    if decision:
        start = json.dumps(skeleton(by_name[decision].get("inputSchema") or {}), ensure_ascii=False)
        raw = st.text_area(t("scripted_arguments", lang), value=start, key=f"scripted_args_{decision}", height=80)
        turns.append({"call": decision, "arguments": raw})  # the script's reader parses and checks it
    answer = st.text_input(t("scripted_answer", lang), key="scripted_answer")
    turns.append({"answer": answer.strip() or None})
    try:
        return parse_script(turns)
    except ScriptError as exc:
        st.error(t("scripted_bad_args", lang, error=plain(exc)), icon=":material/error:")
        return None


def mock_behaviour(lang: Lang) -> str:
    """The mock model's behaviour: each named in the page's language beside the id the command line's --model takes,
    what the chosen one does under the list, and every one explained in a fold (a tooltip is cut at 300 px)."""
    model: str = remembered(
        st.selectbox,
        t("mock_behaviour", lang),
        MOCK_MODELS,
        key="mock_model",
        format_func=lambda m: mock_model_label(m, lang),
    )
    st.caption(mock_model_does(model, lang))
    with st.expander(t("mock_all", lang, n=len(MOCK_MODELS)), key=f"mock_all_{lang}"):
        st.markdown(mock_models_help(lang))
    return model


def use_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
    st.session_state["example"] = None


# With the tools that ask back on, the examples are the questions on which each of them asks.
asks_chosen = bool(app.choices.get("asks", False)) and app.choices.get("mode", "mcp") == "mcp"
if asks_chosen:
    asking = {pair[0 if lang == "zh" else 1]: kind for kind, pair in ASKING_QUESTIONS.items()}
    st.pills(
        t("asks_examples", lang),
        list(asking),
        key="example",
        on_change=use_example,
        format_func=lambda q: f"{q} · {t(f'asks_kind_{asking[q]}', lang)}",
    )
else:
    st.pills(t("examples", lang), EXAMPLE_QUESTIONS, key="example", on_change=use_example)
ask, go = st.columns([6, 1], vertical_alignment="bottom")
question = ask.text_input(t("question", lang), value=EXAMPLE_QUESTIONS[0], key="question")
run_slot = go.empty()  # the Run button sits beside the question, drawn once its options are known
pace = remembered_value(
    st.toggle, t("pace", lang, s=PACE_S), key="pace", default=True, help=t("pace_help", lang, s=PACE_S)
)
outcome_slot = st.empty()  # what the last run did, and where to open it
progress = st.container()  # and the hops, as they happen, right under it
just_ran = False

try:
    servers = configured_servers()
except ServerConfigError as exc:
    st.error(t("server_config_bad", lang, error=exc), icon=":material/error:")
    servers = built_in_servers()

left, right = st.columns(2, gap="large")
with left:
    mode = remembered(
        st.radio,
        t("mode", lang),
        ["mcp", "direct", "hosted"],
        horizontal=True,
        key="mode",
        format_func=lambda m: t(f"mode_{m}", lang),
    )
    st.caption(t(f"mode_client_{mode}", lang))  # who is the MCP client in this mode
    hosted = mode == "hosted"
    api = remembered(
        st.radio,
        t("api", lang),
        list(flow.API),
        horizontal=True,
        key="api",
        format_func=lambda a: t(f"api_{a}", lang),
        help=t("api_help", lang),
    )
    hosted_chat = hosted and not flow.API[api].hosted_mcp  # Chat Completions has no hosted MCP
    if hosted_chat:
        st.warning(t("hosted_needs_api", lang), icon=":material/block:")
    # Hosted MCP: the provider must reach the server, so only the demo server (the mock provider reaches it on
    # loopback) and configured servers with a URL; never a URL typed here (a visitor chooses no URL to contact).
    offered = [n for n, s in servers.items() if n == DEMO or s.spec.url] if hosted else list(servers)
    server_name = remembered(
        st.selectbox,
        t("mcp_server", lang),
        [*offered, *([TYPED] if allow_typed_commands() and not hosted else [])],
        key="server",
        disabled=mode == "direct",
        help=t("hosted_server_help" if hosted else "mcp_server_help", lang),
        format_func=lambda n: t("server_typed", lang) if n == TYPED else n,
    )
    asks = remembered_value(
        st.toggle,
        t("asks", lang),
        key="asks",
        default=False,
        disabled=mode != "mcp" or server_name != DEMO,
        help=t("asks_help", lang),
    ) and (mode == "mcp" and server_name == DEMO)
    if asks:
        st.caption(t("asks_roots", lang))  # roots: never a folder a visitor names
    # What the scripted model and the context offer: the demo server (listed in memory), or the chosen one.
    server_spec = ServerSpec(transport="memory", asks=asks)
    bad_command = False
    bad_url: str | None = None  # why the typed base URL cannot be used, in the page's language
    if mode == "mcp" and server_name == TYPED:
        try:
            server_spec = ServerSpec(
                command=tuple(shlex.split(st.text_input(t("server_command", lang), key="server_command")))
            )
        except ValueError as exc:
            st.error(t("server_command_bad", lang, error=plain(exc)))
        bad_command = server_spec.is_demo
    elif mode in ("mcp", "hosted") and server_name != DEMO:
        server_spec = servers[server_name].spec
    demo = server_spec.is_demo  # transport, faults and the warm session are the demo server's
    backend = remembered(
        st.radio,
        t("model", lang),
        ["mock", "scripted", "provider"],
        horizontal=True,
        key="backend",
        format_func=lambda b: t(f"backend_{b}", lang),
    )
    key = KeyChoice(None)
    key_env = None  # the variable whose key this base URL would get
    preset = None
    script: tuple[Turn, ...] | None = ()
    if backend == "scripted":
        script = scripted_turns(None if bad_command else offered_tools(mode, server_spec), lang)
        model_name, base_url = "scripted", None
    elif backend == "mock":
        model_name = mock_behaviour(lang)
        base_url = None
    else:
        preset = remembered(
            st.selectbox,
            t("preset", lang),
            [p for p in PRESETS if p.api == api],  # the endpoints that speak the chosen model API
            key=f"preset_{api}",
            format_func=lambda p: p.name.replace(" (local)", t("local", lang)),
        )
        # Typed, so that the inputs are known to return a str (a text input given None as its value may return None).
        preset_url: str = preset.base_url
        preset_model: str = preset.model
        base_url = st.text_input(t("base_url", lang), value=preset_url, key=f"base_url_{preset.name}").strip()
        model_name = st.text_input(t("model_name", lang), value=preset_model, key=f"model_{preset.name}")
        # The operator's key goes only to the URL it was set up for; a visitor's URL gets a typed key or none.
        key_env = key_env_for(preset, base_url)
        # No session key: the typed key lives only in this widget, never in the app's state or a trace.
        typed_key = st.text_input(
            t("api_key", lang), type="password", placeholder=t("key_from_env", lang, env=key_env) if key_env else None
        )
        key = key_for(preset, base_url, typed_key)
        if key.withheld:
            st.warning(t("key_withheld", lang, env=key.withheld), icon=":material/key_off:")
        if hosted:  # the provider reaches the server with its credential: the same rule as the key's
            named = server_for(server_spec, preset, base_url)
            server_spec = named.spec
            if named.withheld:
                st.warning(t("server_token_withheld", lang, env=named.withheld), icon=":material/key_off:")
        try:  # a URL no request can go to is one line here, and the run waits for one that can
            flow.check_base_url(base_url)
        except flow.FlowError as exc:
            bad_url = exc.line(lang)
            st.error(plain(bad_url), icon=":material/error:")
with right:
    with st.expander(t("options", lang), expanded=True):
        choice = remembered(
            st.selectbox,
            t("tool_choice", lang),
            ["auto", "none", "required", "named"],
            key="tool_choice",
            format_func=lambda c: t("choice_named", lang) if c == "named" else c,  # the others are the API's values
        )
        if choice == "named":
            choice = remembered(
                st.selectbox,
                t("named_function", lang),
                ["get_weather", "calc_work_hours", "best_practice"],
                key="named",
            )
        require_approval, approve = False, True
        wire = flow.API[api]
        if hosted and wire.hosted_approval:  # the Responses mcp tool's require_approval, and what the app answers
            require_approval = remembered_value(
                st.toggle,
                t("require_approval", lang),
                key="require_approval",
                default=False,
                help=t("require_approval_help", lang),
            )
            approve = (
                remembered(
                    st.radio,
                    t("approval_answer", lang),
                    ["approve", "deny"],
                    horizontal=True,
                    key="approval_answer",
                    disabled=not require_approval,
                    format_func=lambda a: t(f"approval_{a}", lang),
                )
                == "approve"
            )
        elif hosted and wire.hosted_mcp:  # the Messages connector asks no approval
            st.caption(t("approval_messages", lang))
        parallel = remembered_value(st.checkbox, t("parallel", lang), key="parallel", default=True)
        strict = remembered_value(st.checkbox, t("strict", lang), key="strict", default=False)
        stream = remembered_value(st.checkbox, t("stream", lang), key="stream", default=False)
        previous_response = wire.keeps_responses and remembered_value(
            st.checkbox,
            t("previous_response", lang),
            key="previous_response",
            default=False,
            help=t("previous_response_help", lang),
        )
        adapt = remembered_value(st.checkbox, t("adapt", lang), key="adapt", default=True, help=t("adapt_help", lang))
        era = remembered(
            st.radio,
            t("era", lang),
            ["handshake", "modern"],
            horizontal=True,
            key="era",
            format_func=lambda e: t(f"era_{e}", lang),
            disabled=mode != "mcp",
        )
        transport = remembered(
            st.radio,
            t("transport", lang),
            ["memory", "stdio"],
            horizontal=True,
            key="transport",
            disabled=mode != "mcp" or not demo,
            help=t("transport_help", lang),
            format_func=lambda tr: t(f"transport_{tr}", lang),
        )
        max_rounds = remembered_value(
            st.number_input, t("max_rounds", lang), key="max_rounds", default=5, min_value=1, max_value=10
        )
        fault = remembered(
            st.radio,
            t("server_fault", lang),
            ["none", "die", "hang"],
            horizontal=True,
            key="server_fault",
            format_func=lambda f: t(f"fault_{f}", lang),
            disabled=mode != "mcp" or not demo or asks,  # its 5 s timeout is no call's that waits for the user
        )
        keep_warm = remembered_value(
            st.checkbox,
            t("keep_warm", lang),
            key="keep_warm",
            default=False,
            help=t("keep_warm_help", lang),
            # the kept-open server is the plain demo server, without the tools that ask back
            disabled=mode != "mcp" or transport != "stdio" or fault != "none" or not demo or asks,
        )
        elicit_timeout_s = remembered_value(
            st.number_input,
            t("elicit_timeout", lang),
            key="elicit_timeout",
            default=120,
            min_value=1,
            max_value=600,
            disabled=not asks,
            help=t("elicit_timeout_help", lang),
        )
        # A server's sampling request spends the model only with a provider: the mock and the script cost nothing.
        approve_sampling = remembered_value(
            st.toggle,
            t("approve_sampling", lang),
            key="approve_sampling",
            default=False,
            disabled=not asks or backend != "provider",
            help=t("approve_sampling_help", lang),
        ) and (asks and backend == "provider")
        if asks and backend != "provider":
            st.caption(t("sampling_free", lang))

resources: list[str] = []
prompt, prompt_args = None, {}
if mode == "mcp" and not bad_command:
    listing, _ = server_listing(server_spec, "handshake")
    with left.expander(t("context", lang)):
        resources = remembered_multiselect(
            t("resources", lang),
            [r["uri"] for r in listing["resources"]],
            key="resources",
            placeholder=t("choose", lang),
        )
        prompts = {p["name"]: p for p in listing["prompts"]}
        prompt = (
            remembered(
                st.selectbox,
                t("prompt", lang),
                ["", *prompts],
                key="prompt",
                format_func=lambda n: n or t("no_prompt", lang),
            )
            or None
        )
        for arg in (prompts[prompt].get("arguments") or []) if prompt else []:
            prompt_args[arg["name"]] = st.text_input(
                t("prompt_arg", lang, name=plain(arg["name"])),
                key=f"prompt_{prompt}_{arg['name']}",
                help=plain(arg["description"]) if arg.get("description") else None,
            )

if backend == "provider" and base_url:  # what the preset's server is known to do with the options chosen
    chosen = flow.RunOptions(api=api, tool_choice=choice, parallel=parallel, strict=strict, stream=stream, adapt=adapt)
    for note in flow.notes_before_sending(base_url, chosen):
        st.info(t("provider_note", lang, note=flow.PROVIDER_NOTES[note][lang]), icon=":material/info:")

missing_key = backend == "provider" and preset is not None and preset.needs_key and not key.key
if missing_key and not key.withheld:  # a withheld key has said why already
    st.warning(t("no_key", lang, env=key_env) if key_env else t("no_key_typed", lang))

scripted_api = backend == "scripted" and api not in flow.SCRIPTED_APIS
if scripted_api:
    st.info(t("api_scripted", lang, api=t(f"api_{api}", lang)), icon=":material/info:")

live = app.live
waiting = live is not None and live.answerer.asked is not None  # a run waits for the form below: answer it first
blocked = (
    waiting
    or hosted_chat
    or scripted_api
    or missing_key
    or script is None
    or bad_command
    or bad_url is not None
    or not question.strip()
)
# A crafted client can press a disabled button (the server does not check): a URL that cannot be used still runs nothing.
if run_slot.button(t("run_button", lang), type="primary", disabled=blocked, key="run", width="stretch") and (
    bad_url is None
):
    options = flow.RunOptions.build(
        server=server_spec,
        mode=mode,
        api=api,
        previous_response=previous_response,
        tool_choice=choice,
        parallel=parallel,
        strict=strict,
        stream=stream,
        adapt=adapt,
        max_rounds=max_rounds,
        era=era,
        transport=transport,
        server_fault="none" if asks else fault,
        # In 2025-11-25 the server asks in the middle of tools/call, so the call's own timeout runs while the form
        # waits: it must outlast the form's.
        mcp_timeout_s=5.0 + (elicit_timeout_s if asks else 0.0),
        resources=resources,
        prompt=prompt,
        prompt_args={k: v for k, v in prompt_args.items() if v},
        require_approval="always" if require_approval else "never",
        approve=approve,
        asks=asks,
        elicit_timeout_s=elicit_timeout_s,
        approve_sampling=approve_sampling,
    )
    if backend == "scripted":
        model = flow.ModelConfig.scripted(script or ())
    elif backend == "mock":
        model = flow.ModelConfig(model=model_name)
    else:
        model = flow.ModelConfig(backend="openai", model=model_name, base_url=base_url, api_key=key.key)
    warm = keep_warm and mode == "mcp" and demo and transport == "stdio" and fault == "none" and not asks
    answerer = PageAnswerer(options.elicit_timeout_s)

    def start(on_hop: Callable[[flow.Hop], None]) -> Future[flow.RunResult]:
        if warm:  # the warm session runs on its own thread already
            return warm_session(app, era).submit(question, options=options, model=model, on_hop=on_hop)
        return in_thread(lambda: flow.run(question, options=options, model=model, on_hop=on_hop, answerer=answerer))

    live = app.live = LiveRun(start, answerer)

result: flow.RunResult | None = None
asked = live.answerer.asked if live is not None else None
if live is not None and asked is not None:
    # The run waits for the user: its hops so far folded away, so that the form is in sight at 1280 × 720.
    with progress.expander(t("run_asks_user", lang, hops=live.shown), icon=":material/pause_circle:"):
        lines = st.container(height=LIVE_LIST_PX, autoscroll=True, gap=None, border=False, key="run_live")
        lines.markdown("  \n".join(hop_line(hop, lang) for hop in live.hops[: live.shown]))
    with progress:
        ask_form(live, asked, lang)
elif live is not None:  # a run under way, started now or before this script run (a click, an answer, a timeout)
    label = t("running_paced", lang, s=PACE_S) if pace else t("running", lang)
    with progress.status(label, expanded=True) as status:
        # A box of its own height that follows the newest hop: at 1280 × 720 the list would run below the fold.
        lines = status.container(height=LIVE_LIST_PX, autoscroll=True, gap=None, border=False, key="run_live")
        result = live.follow(lambda hop: lines.markdown(hop_line(hop, lang)), pace_s=PACE_S if pace else 0.0)
        if result is not None:
            elapsed = f"{(result.trace.meta.stats or {}).get('elapsed_ms', 0):,.0f}"
            status.update(
                label=t("run_done" if result.ok else "run_failed", lang, hops=len(result.trace.hops), ms=elapsed),
                state="complete" if result.ok else "error",
            )
    if result is None:  # it waits for the user: the page again, with the form and the Run button off
        st.rerun()
if live is not None and result is not None:
    app.live = None
    item = add_run(app, result.trace)
    told = flow.run_outcome(result.trace)
    app.last_outcome = {"key": item.key, "verdict": told.verdict, "seq": told.seq, "text": told.text}
    open_at(item.key, 0, switch=False)  # Step through shows this run from now on
    just_ran = True

outcome = app.last_outcome
if outcome is not None and app.live is None and outcome["key"] in all_traces(app):
    with outcome_slot.container(key="run_outcome"):
        alert = {"clean": st.success, "answered_after_problem": st.warning, "unknown": st.info}.get(
            outcome["verdict"], st.error
        )
        alert(plain(outcome["text"][lang]), icon=OUTCOME_ICONS.get(outcome["verdict"], ":material/error:"))
        jump_at, from_start = st.columns([3, 2, 3])[:2]
        seq = max(1, int(outcome["seq"]))
        if jump_at.button(t("outcome_open", lang, n=seq), key="open_outcome", type="primary", width="stretch"):
            open_at(outcome["key"], seq - 1)
        if from_start.button(t("outcome_start", lang), key="open_start", width="stretch"):
            open_at(outcome["key"], 0)
        if not just_ran:  # the hops as they came, for a look back (the live list is gone after a rerun)
            hops = all_traces(app)[outcome["key"]].trace.hops
            with st.expander(t("run_hops", lang, n=len(hops))):
                st.markdown("  \n".join(hop_line(h, lang) for h in hops))
