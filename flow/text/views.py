"""The wording of the views: the trace viewer's controls (it also runs without the app, in an HTML export) and the
sequence diagram's own labels. The app's page wording lives in flow_ui/i18n.py."""

from __future__ import annotations

from flow.text.names import Lang
from flow.text.route import ARTICLES

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
    "more_chars": {"zh": "展开余下 {n} 个字符", "en": "{n} more characters"},
    "keys_count": {"zh": "{n} 个键", "en": "{n} keys"},
    "key_count": {"zh": "1 个键", "en": "1 key"},
    "closing_page": {"zh": "第 {n}/{of} 部分 · 按 → 看下一部分", "en": "Part {n} of {of} · → for the next"},
    "recorder_note": {
        "zh": "以下是记录器自己加的（把各跳配对起来的编号、截断说明），没有经过任何边界",
        "en": "Below: the recorder's own fields (the ids it pairs hops by, what it cut); they crossed no boundary",
    },
    # the route at a glance: the articles' ten messages
    "route": {"zh": "文章的十条消息", "en": "The articles' ten messages"},
    "route_article": {"zh": "文章", "en": "Articles"},
    "route_app": {"zh": "本应用", "en": "This app"},
    "route_zero": {"zh": "0", "en": "0"},
    "route_message": {"zh": "消息 {n}", "en": "Message {n}"},
    "route_phase_zero": {"zh": "阶段零（准备，还没有消息）", "en": "Phase zero (preparing, no message yet)"},
    "route_app_step": {"zh": "本应用第 {n} 步「{name}」", "en": "this app's step {n}, “{name}”"},
    "route_says": {"zh": "文章：{route}", "en": "Articles: {route}"},
    "route_here": {"zh": "本次：{route}（{hops}）", "en": "This run: {route} ({hops})"},
    "route_hops": {"zh": "{n} 跳", "en": "{n} hops"},
    "route_hop": {"zh": "1 跳", "en": "1 hop"},
    "route_visits": {"zh": "{n} 次", "en": "×{n}"},
    "route_outside": {
        "zh": "这一跳不属于十条消息中的任何一条（步骤之外的线路帧）。",
        "en": "This hop is none of the ten messages (a wire frame outside the numbered steps).",
    },
    "route_jump": {"zh": "点击跳到这条消息的第一跳", "en": "Click to go to this message's first hop"},
    "route_source": ARTICLES["000"],  # the "Articles" row's label says which article the ten messages are from
    "route_note_open": {"zh": "点击看原文哪里错了", "en": "Click to read where the article is wrong"},
    "route_note_go": {"zh": "跳到这条消息", "en": "Go to this message"},
    "route_note_close": {"zh": "关闭（Esc）", "en": "Close (Esc)"},
    "captions": {"zh": "餐厅比喻", "en": "Restaurant"},
    "caption_prefix": {"zh": "餐厅比喻：", "en": "In the restaurant: "},
    # predict, then reveal
    "questions": {"zh": "课堂提问", "en": "Questions"},
    "predict": {"zh": "先猜一猜", "en": "Predict first"},
    "reveal": {"zh": "揭晓答案", "en": "Reveal"},
    "hidden_hop": {
        "zh": "先别看：揭晓答案之后，才显示这一跳的内容。",
        "en": "Not yet: this hop is shown once the answer is revealed.",
    },
    "right_answer": {"zh": "正确答案", "en": "Right answer"},
    "quiz_keys": {"zh": "A–E 选择 · → 或回车揭晓", "en": "A–E picks · → or Enter reveals"},
    # classroom rooms
    "room": {"zh": "房间", "en": "Room"},
    "room_joined": {"zh": "{n} 人在跟随", "en": "{n} following"},
    "room_joined_all": {"zh": "（共 {n} 人加入过）", "en": "({n} joined in all)"},
    "room_show_qr": {"zh": "二维码", "en": "QR code"},
    "room_join": {"zh": "扫码或打开链接，跟着老师一起看", "en": "Scan or open the link to follow on your screen"},
    "room_qr_close": {"zh": "点击任意处关闭", "en": "Click anywhere to close"},
    "room_following": {"zh": "正跟着老师：第 {n} 跳", "en": "Following the teacher: hop {n}"},
    "room_own": {
        "zh": "你在自己翻看，老师在第 {n} 跳。",
        "en": "You are looking on your own; the teacher is at hop {n}.",
    },
    "room_back": {"zh": "回到老师这里（第 {n} 跳）", "en": "Back to the teacher (hop {n})"},
    "room_pick": {"zh": "选一个答案：每人一次，老师揭晓", "en": "Pick one: one answer each, the teacher reveals"},
    "room_sent": {"zh": "已提交，等老师揭晓", "en": "Answer sent: the teacher reveals"},
    "room_votes": {"zh": "{n} 票", "en": "{n} votes"},
    "room_vote": {"zh": "{n} 票", "en": "{n} vote"},
    "room_answered": {"zh": "已有 {n} 人作答，揭晓时显示票数", "en": "{n} answered: the counts show at the reveal"},
    "room_votes_live": {"zh": "实时票数", "en": "Live votes"},
    "room_votes_live_help": {
        "zh": "揭晓之前就在老师的屏幕（投影）上显示每个选项的票数：还没作答的同学会看到大家选了什么。",
        "en": "Show each choice's count on this screen before the reveal: students still answering see what others chose.",
    },
    "room_gone": {"zh": "房间已关闭", "en": "the room was closed"},
    "room_gone_banner": {
        "zh": "老师已关闭房间：你可以继续自己翻看这个记录。",
        "en": "The teacher closed the room: you may go on looking at this trace on your own.",
    },
    "room_offline": {"zh": "正在重新连接…", "en": "reconnecting…"},
    "room_teacher_away": {
        "zh": "老师的屏幕暂时断开（也许在刷新页面）：你可以先自己翻看，老师回来后会接着跟随。",
        "en": "The teacher's screen is away for now (perhaps reloading): look on your own; you follow again when it is back.",
    },
    "room_new_trace": {"zh": "老师换了一个记录：{title}", "en": "The teacher moved on to another trace: {title}"},
    "room_loopback": {
        "zh": "这个链接只在本机有效：要让学生的设备打开，请用 mcp-flow app --lan（在克隆的仓库里是 ./dev.sh app --lan）启动应用。",
        "en": "This link works on this computer only: for students' devices, start the app with mcp-flow app --lan (in a clone, ./dev.sh app --lan).",
    },
    "colon": {"zh": "：", "en": ": "},
    # hosted MCP: what was seen, what was reported
    "reported_tag": {"zh": "服务商的报告", "en": "reported by the provider"},
    "observed_at": {"zh": "记录器也观测到了：第 {n} 跳", "en": "observed at hop {n}"},
    "not_observed": {
        "zh": "没有观测到对应的帧：时间、重试和请求头都无从得知",
        "en": "no frame of it was observed: its timing, retries and headers are unknown",
    },
    "observed_tag": {"zh": "记录器观测到的帧", "en": "observed by the recorder"},
    "reported_at": {"zh": "服务商的报告：第 {n} 跳", "en": "the provider reports it at hop {n}"},
    "mismatch": {"zh": "报告与观测不符：{what}", "en": "the report differs from the frame seen: {what}"},
}


DIAGRAM_TEXT: dict[str, dict[Lang, str]] = {
    "more_above": {"zh": "⋮ 前面还有 {n} 跳", "en": "⋮ {n} earlier hops"},
    "more_below": {"zh": "⋮ 后面还有 {n} 跳", "en": "⋮ {n} later hops"},
}
