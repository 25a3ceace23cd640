"""The form a person fills when the run's MCP server asks the user (elicitation): the server's message, one widget
per field of its `requestedSchema`, and Accept / Decline / Cancel; and the approval of a server's sampling request
(its messages, editable, the tools it offers, maxTokens), Approve / Deny. No flow logic here: the answer goes to the
run through its `PageAnswerer` (flow_ui/live.py)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeGuard

import streamlit as st

from flow import MAX_SAMPLING_TOKENS, Lang, field_choices, form_fields
from flow_ui.i18n import t
from flow_ui.live import Asked, LiveRun
from flow_ui.text import plain

RADIO_MOST = 16  # more choices than this are a dropdown, fewer are all in sight (a class sees what the server offers)


def field(name: str, prop: Mapping[str, Any], *, required: bool, key: str) -> Any:
    """One field of the form as the widget its type asks for; None (or "" or []) when left empty."""
    label = plain(str(prop.get("title") or name)) + (" *" if required else "")
    info = plain(prop["description"]) if isinstance(prop.get("description"), str) else None
    kind = prop.get("type", "string")
    default = prop.get("default")
    items = prop["items"] if isinstance(prop.get("items"), dict) else {}
    if kind == "array" and (listed := field_choices(items)) is not None:
        values, titles = listed
        chosen = [d for d in default or [] if d in values] if isinstance(default, list) else []
        return st.multiselect(
            label, values, default=chosen, key=key, help=info, format_func=lambda v: plain(titles[v]), placeholder=""
        )
    if (listed := field_choices(prop)) is not None:
        values, titles = listed
        index = values.index(default) if default in values else None
        if len(values) <= RADIO_MOST:
            return st.radio(
                label, values, index=index, key=key, help=info, horizontal=True, format_func=lambda v: plain(titles[v])
            )
        return st.selectbox(
            label, values, index=index, key=key, help=info, format_func=lambda v: plain(titles[v]), placeholder=""
        )
    if kind == "boolean":
        return st.checkbox(label, value=bool(default), key=key, help=info)
    if kind in ("number", "integer"):
        cast: Callable[[Any], Any] = int if kind == "integer" else float
        low, high = (cast(prop[n]) if _number(prop.get(n)) else None for n in ("minimum", "maximum"))
        value = cast(default) if _number(default) else None
        if value is not None and ((low is not None and value < low) or (high is not None and value > high)):
            value = None  # a default outside the field's own range is no default Streamlit can show
        return st.number_input(label, value=value, min_value=low, max_value=high, key=key, help=info, step=cast(1))
    limit = prop.get("maxLength")
    return st.text_input(
        label,
        value=str(default) if isinstance(default, str) else "",
        key=key,
        help=info,
        max_chars=limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None,
    )


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _filled(value: Any) -> bool:
    return value is not None and value != "" and value != []


@st.fragment(run_every=1.0)
def _countdown(live: LiveRun, number: int, lang: Lang) -> None:
    """How long the question still waits; once the run stops waiting on it (given up at the timeout), the page
    follows the run again."""
    asked = live.answerer.asked
    if asked is None or asked.number != number:
        st.rerun(scope="app")
    left = max(0, math.ceil(asked.deadline - time.monotonic()))
    st.caption(t("ask_countdown", lang, s=left))


def ask_form(live: LiveRun, asked: Asked, lang: Lang) -> None:
    """The question the run waits on, as a form; an answer goes to the run and the page follows it again."""
    question = asked.question
    if question.sampling is not None:
        approve_form(live, asked, lang)
        return
    with st.container(border=True, key="ask_box"):
        message = plain(question.message) or t("ask_no_message", lang)
        st.info(f"**{t('ask_title', lang)}**  \n{message}", icon=":material/help:")
        values: dict[str, Any] = {}
        missing: list[str] = []
        with st.form(key=f"ask_form_{asked.number}", border=False):
            if question.mode == "url":
                st.code(question.url, language=None, wrap_lines=True)
                st.caption(t("ask_url", lang))
            else:  # the host refuses a form outside the spec before asking; a list of none is shown as none
                fields = form_fields(question.schema)
                for name, prop, required in fields if not isinstance(fields, str) else []:
                    value = field(name, prop, required=required, key=f"ask_{asked.number}_{name}")
                    if _filled(value):
                        values[name] = value
                    elif required:
                        missing.append(str(prop.get("title") or name))
            accept, decline, cancel, waits = st.columns([1, 1, 1, 2], vertical_alignment="center")
            pressed: Literal["accept", "decline", "cancel"] | None = None
            if accept.form_submit_button(t("ask_accept", lang), type="primary", key="ask_accept", width="stretch"):
                pressed = "accept"
            if decline.form_submit_button(t("ask_decline", lang), key="ask_decline", width="stretch"):
                pressed = "decline"
            if cancel.form_submit_button(t("ask_cancel", lang), key="ask_cancel", width="stretch"):
                pressed = "cancel"
            with waits:
                _countdown(live, asked.number, lang)
        st.caption(t("ask_actions", lang))
    if pressed == "accept" and missing:
        st.error(t("ask_missing", lang, fields=plain(", ".join(missing))), icon=":material/error:")
    elif pressed is not None:
        live.answerer.answer(asked.number, pressed, values)
        st.rerun()


def approve_form(live: LiveRun, asked: Asked, lang: Lang) -> None:
    """A server's sampling request the run waits on: what would go to the model, each text message editable and
    maxTokens, then Approve (with the edits) or Deny; nothing is sent before."""
    request = asked.question.sampling
    assert request is not None
    texts: list[str] = []
    with st.container(border=True, key="sampling_box"):
        st.warning(f"**{t('sampling_title', lang)}**  \n{t('sampling_why', lang)}", icon=":material/toll:")
        with st.form(key=f"sampling_form_{asked.number}", border=False):
            if request.system_prompt:
                st.caption(t("sampling_system", lang))
                st.code(request.system_prompt, language=None, wrap_lines=True)
            for n, message in enumerate(request.messages, 1):
                label = t("sampling_message", lang, n=n, role=message.role)
                if message.editable:
                    texts.append(st.text_area(label, message.text, key=f"sampling_{asked.number}_{n}", height=110))
                else:
                    st.caption(f"{label} · {t('sampling_fixed', lang)}")
                    st.code(message.text, language=None, wrap_lines=True)
                    texts.append(message.text)
            if request.tools:
                st.caption(t("sampling_tools", lang, tools=plain(", ".join(request.tools))))
            tokens = st.number_input(
                t("sampling_max_tokens", lang),
                min_value=1,
                max_value=MAX_SAMPLING_TOKENS,
                value=min(max(request.max_tokens, 1), MAX_SAMPLING_TOKENS),
                step=1,
                key=f"sampling_{asked.number}_max_tokens",
            )
            approve, deny, waits = st.columns([1, 1, 2], vertical_alignment="center")
            pressed: Literal["accept", "decline"] | None = None
            if approve.form_submit_button(
                t("sampling_approve", lang), type="primary", key="sampling_approve", width="stretch"
            ):
                pressed = "accept"
            if deny.form_submit_button(t("sampling_deny", lang), key="sampling_deny", width="stretch"):
                pressed = "decline"
            with waits:
                _countdown(live, asked.number, lang)
        st.caption(t("sampling_actions", lang))
    if pressed is not None:
        live.answerer.answer(asked.number, pressed, {"texts": texts, "max_tokens": int(tokens)})
        st.rerun()
