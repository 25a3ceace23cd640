"""Every line a classroom room refuses with, in English and Chinese: the rooms (flow.rooms) raise a code with its
parameters (`RoomError`), and only this table words it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from flow.text.names import Lang

RoomErrorCode = Literal[
    # the room
    "no_room",
    "too_many_rooms",
    "too_much_data",
    "room_full",
    "other_round",
    "bundle_langs",
    "bundle_too_big",
    "bundle_no_hops",
    # the teacher
    "not_teacher",
    "too_fast",
    "bad_view",
    "bad_index",
    "bad_lang",
    # a follower
    "not_a_follower",
    "not_following",
    "joining_too_fast",
    "no_question",
    "bad_choice",
    "answered_once",
    "revealed_already",
    # a request
    "body_too_large",
    "body_too_deep",
    "body_not_json",
    "not_whole_number",
    "bad_token",
    "bad_answer",
    "no_bundle_lang",
    "streams_from_address",
    "streams_of_token",
    "streams_in_all",
    # the rooms' Redis
    "redis_url",
    "redis_refused",
    "redis_silent",
    "redis_error",
    "busy",
]

Template = str | Callable[..., str]  # a str.format template, or a function of the parameters

_LINES: dict[RoomErrorCode, tuple[Template, Template]] = {
    "no_room": (
        "no such room: it was closed, it expired after two idle hours, or the link is wrong",
        "没有这个房间：已关闭、闲置两小时后过期，或链接有误",
    ),
    "too_many_rooms": (
        "too many rooms are open on this server ({limit}); close one or wait for one to expire",
        "本服务器打开的房间已达上限（{limit} 个）；请关闭一个或等它过期",
    ),
    "too_much_data": (
        lambda limit: (
            f"the rooms on this server hold at most {limit // 2**20} MiB of viewer data together; close a "
            "room, wait for one to expire, or present a smaller trace"
        ),
        lambda limit: (
            f"本服务器所有房间合计最多保存 {limit // 2**20} MiB 的查看器数据；请关闭一个房间、等它过期，或展示更小的记录"
        ),
    ),
    "room_full": ("this room is full ({limit} followers)", "这个房间已满（{limit} 人）"),
    "other_round": (
        "the room shows another trace now (round {current}): the page follows it",
        "房间已换成另一个记录（第 {current} 轮）：页面会跟上",
    ),
    "bundle_langs": (
        "cannot present this trace: a room needs the trace's viewer bundle in Chinese and in English",
        "无法展示这个记录：房间需要这个记录的中文和英文查看器数据",
    ),
    "bundle_too_big": (
        lambda size, limit: (
            f"cannot present this trace: {size / 2**20:.0f} MiB of viewer data is over the "
            f"{limit // 2**20} MiB a room holds"
        ),
        lambda size, limit: (
            f"无法展示这个记录：{size / 2**20:.0f} MiB 的查看器数据超过了一个房间能保存的 {limit // 2**20} MiB"
        ),
    ),
    "bundle_no_hops": (
        "cannot present this trace: the bundles hold no hops, or not the same hops",
        "无法展示这个记录：查看器数据里没有跳，或两种语言的跳不一致",
    ),
    "not_teacher": (
        "only the teacher moves the room: a follower looks on its own",
        "只有老师能移动房间：学生只能自己翻看",
    ),
    "too_fast": (
        "too many events: the teacher's view changes at most {per_s:g} times a second",
        "事件太多：老师的视图每秒最多变化 {per_s:g} 次",
    ),
    "bad_view": (
        "a view is a JSON object {{index, lang, quiz, captions}}",
        "视图应为 JSON 对象 {{index, lang, quiz, captions}}",
    ),
    "bad_index": (
        lambda hops: f"index is a hop from 0 to {hops - 1}",
        lambda hops: f"index 应为 0 到 {hops - 1} 的跳序号",
    ),
    "bad_lang": ("lang is zh or en", "lang 应为 zh 或 en"),
    "not_a_follower": (
        "join the room first: this follower token is not one the room gave out",
        "请先加入房间：这个学生令牌不是房间发出的",
    ),
    "not_following": (
        "answers come from a screen that follows the room: open the room's page (its link or QR code) to answer",
        "只有正在跟随房间的屏幕才能回答：请打开房间的页面（链接或二维码）再回答",
    ),
    "joining_too_fast": (
        lambda per_s: f"too many new followers from this address: one every {1 / per_s:g} s; try again shortly",
        lambda per_s: f"来自这个地址的新学生太多：每 {1 / per_s:g} 秒一个；请稍后再试",
    ),
    "no_question": (
        lambda index: f"hop {index + 1} asks no question",
        lambda index: f"第 {index + 1} 跳没有问题",
    ),
    "bad_choice": ("a choice is a number from 1 to {n}", "选项是 1 到 {n} 的数字"),
    "answered_once": (
        "this question was answered from this screen already: one answer each",
        "这台设备已经回答过这个问题：每人一次",
    ),
    "revealed_already": (
        "the teacher has revealed this question: answers are closed",
        "老师已揭晓答案：不再接受回答",
    ),
    "body_too_large": ("a request to a room is at most {limit} bytes", "发给房间的请求最多 {limit} 字节"),
    "body_too_deep": (
        "the request body nests deeper than {limit} levels: a room's requests are flat JSON objects",
        "请求内容嵌套超过 {limit} 层：发给房间的请求是扁平的 JSON 对象",
    ),
    "body_not_json": ("the request body is not JSON", "请求内容不是 JSON"),
    "not_whole_number": ("{name} is a whole number", "{name} 应为整数"),
    "bad_token": ("token is the string the room gave at join", "token 应为加入房间时得到的字符串"),
    "bad_answer": ("an answer is {{token, index, choice}}", "回答应为 {{token, index, choice}}"),
    "no_bundle_lang": ("a bundle is zh or en", "只有 zh 或 en 两种"),
    "streams_from_address": (
        "too many event streams from this address ({limit}): close a room's tab or two",
        "来自这个地址的事件流太多（{limit} 个）：请关闭一两个房间标签页",
    ),
    "streams_of_token": (
        "this follower's page is open {limit} times already: close a tab (a page that reconnects gets back in)",
        "这个学生的页面已经打开了 {limit} 次：请关闭一个标签页（重新连接的页面会自动回来）",
    ),
    "streams_in_all": (
        "this server follows as many screens as it can ({limit}); try again in a moment",
        "本服务器跟随的屏幕已达上限（{limit} 个）；请稍后再试",
    ),
    "redis_url": (
        "{address}: the rooms' Redis URL is not one redis-py reads (redis://, rediss:// or unix://)",
        "{address}：房间的 Redis 地址无法识别（应为 redis://、rediss:// 或 unix://）",
    ),
    "redis_refused": (
        "the rooms' Redis at {address} refused this server's credentials",
        "房间的 Redis（{address}）拒绝了本服务器的凭据",
    ),
    "redis_silent": ("the rooms' Redis at {address} does not answer", "房间的 Redis（{address}）没有响应"),
    "redis_error": (
        "the rooms' Redis at {address} answered with an error ({kind})",
        "房间的 Redis（{address}）返回了错误（{kind}）",
    ),
    "busy": (
        "the room is changing too often to take this now; try again in a moment",
        "房间正在频繁变化，暂时无法处理这个请求；请稍后再试",
    ),
}


def room_line(code: RoomErrorCode, lang: Lang, /, **params: Any) -> str:
    """The one line `code` is told in, in `lang`."""
    template = _LINES[code][0 if lang == "en" else 1]
    return template.format(**params) if isinstance(template, str) else template(**params)
