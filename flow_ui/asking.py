"""The form a person fills when the run's MCP server asks the user (elicitation): the server's message, one widget
per field of its `requestedSchema`, and Accept / Decline / Cancel. No flow logic here: the answer goes to the run
through its `PageAnswerer` (flow_ui/live.py)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import streamlit as st

from flow import Lang, field_choices
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
        low, high = (cast(prop[n]) if isinstance(prop.get(n), (int, float)) else None for n in ("minimum", "maximum"))
        value = cast(default) if isinstance(default, (int, float)) else None
        return st.number_input(label, value=value, min_value=low, max_value=high, key=key, help=info, step=cast(1))
    limit = prop.get("maxLength")
    return st.text_input(
        label,
        value=str(default) if isinstance(default, str) else "",
        key=key,
        help=info,
        max_chars=limit if isinstance(limit, int) and limit > 0 else None,
    )


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
    with st.container(border=True, key="ask_box"):
        message = plain(question.message) or t("ask_no_message", lang)
        st.info(f"**{t('ask_title', lang)}**  \n{message}", icon=":material/help:")
        values: dict[str, Any] = {}
        missing: list[str] = []
        with st.form(key=f"ask_form_{asked.number}", border=False):
            if question.mode == "url":
                st.code(question.url, language=None, wrap_lines=True)
                st.caption(t("ask_url", lang))
            else:
                properties = question.schema.get("properties")
                required = set(question.schema.get("required") or [])
                for name, prop in (properties if isinstance(properties, dict) else {}).items():
                    value = field(
                        name,
                        prop if isinstance(prop, dict) else {},
                        required=name in required,
                        key=f"ask_{asked.number}_{name}",
                    )
                    if _filled(value):
                        values[name] = value
                    elif name in required:
                        missing.append(str(prop.get("title") or name) if isinstance(prop, dict) else name)
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
