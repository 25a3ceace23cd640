"""The wording of the views: the trace viewer's controls (it also runs without the app, in an HTML export) and the
sequence diagram's own labels. The app's page wording lives in ui/i18n.py."""

from __future__ import annotations

from flow.text.names import Lang

VIEWER_TEXT: dict[str, dict[Lang, str]] = {
    "prev": {"zh": "上一步", "en": "Previous"},
    "next": {"zh": "下一步", "en": "Next"},
    "play": {"zh": "自动播放", "en": "Play"},
    "pause": {"zh": "暂停", "en": "Pause"},
    "speed": {"zh": "每步秒数", "en": "Seconds per step"},
    "presenter": {"zh": "演示模式", "en": "Presenter"},
    "leave_presenter": {"zh": "退出演示", "en": "Leave presenter"},
    "fullscreen": {"zh": "全屏", "en": "Full screen"},
    "leave_fullscreen": {"zh": "退出全屏", "en": "Leave full screen"},
    "step": {"zh": "步骤", "en": "Step"},
    "hop_of": {"zh": "第 {i}/{n} 跳", "en": "hop {i} of {n}"},
    "json": {"zh": "这一跳的 JSON", "en": "This hop's JSON"},
    "jump": {"zh": "跳到第几跳：输入数字，按回车", "en": "Go to hop: type a number, press Enter"},
    "keys": {
        "zh": "← → / PageUp PageDown 翻页 · Home End · 数字+回车跳转 · P 演示模式 · F 全屏",
        "en": "← → / PageUp PageDown · Home End · number + Enter jumps · P presenter · F full screen",
    },
    "overview": {"zh": "全程概览（点击跳转）", "en": "The whole run (click to jump)"},
    "no_diagram": {"zh": "无法在这里绘制时序图：{error}", "en": "The diagram cannot be drawn here: {error}"},
    "language": {"zh": "English", "en": "中文"},
    "items": {"zh": "{n} 项", "en": "{n} items"},
    "item": {"zh": "1 项", "en": "1 item"},
    "keys_count": {"zh": "{n} 个键", "en": "{n} keys"},
    "key_count": {"zh": "1 个键", "en": "1 key"},
}


DIAGRAM_TEXT: dict[str, dict[Lang, str]] = {
    "more_above": {"zh": "⋮ 前面还有 {n} 跳", "en": "⋮ {n} earlier hops"},
    "more_below": {"zh": "⋮ 后面还有 {n} 跳", "en": "⋮ {n} later hops"},
}
