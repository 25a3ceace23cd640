"""What a merge of the proxies' recordings says of how the run ended, in English and Chinese, where the wire alone
does not say it (the app's exit code)."""

from __future__ import annotations

from flow.text.names import Lang

APP_EXITED: dict[Lang, str] = {
    "en": "the app exited with code {code}",
    "zh": "应用以退出码 {code} 结束",
}
