"""Detectors for hidden text in markup and for code-insertion orders with a malicious payload."""

from __future__ import annotations

import re

from ..engine import EN, R_CODE, R_HIDDEN, STRONG, WEAK, Detector, _a, _c
from .context import _embedded, _order

_HIDDEN_READER = _c(
    r"(?<![a-z])(?:you|your|ai|assistant|model|llm|instructions?|ignore|must|always|never|respond|reply|send|include|"
    r"system prompt)(?![a-z])"
)
_HIDDEN: tuple[Detector, ...] = (
    Detector(
        R_HIDDEN,
        _c(
            r"<[a-z][^<>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?"
            r"(?:px|pt|em|rem)?\s*[;\"']|opacity\s*:\s*0(?:\.0+)?\s*[;\"']|color\s*:\s*(?:white|#fff(?:fff)?|transparent)"
            r"|\shidden[\s>=])[^<>]{0,200}>([^<]{0,600})"
        ),
        _a("display|visibility|font|opacity|color|hidden"),
        check=lambda view, m: STRONG if _HIDDEN_READER.search(m.group(1)) else 0,
    ),
)

# -- 10. code-insertion orders with a malicious payload ----------------------------------------

_CODE_TARGET = _c(
    r"your\s+(?:[a-z-]+\s+){0,1}?(?:response|reply|answer|output|code|codebase|implementation|algorithm|solution|"
    r"program|script|project|elucidation|function|app|application|software|logic|architecture|tool|work)"
)
_DANGER = _c(
    r"requests\.(?:post|put|patch)\(|urlopen\(|urllib\.request|http\.client|httpx\.(?:post|put)|\.sendall?\(|"
    r"\.connect\(\s*\(|ftplib|smtplib|paramiko|\bscp\s|\brsync\s|curl\s[^\n]{0,80}(?:-d\s|--data|-f\s|--upload-file|"
    r"-t\s|-x\s*post)|\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|nc\s+-e|ncat\s|/dev/tcp/|os\.dup2\(|pty\.spawn|bash\s+-i|"
    r"/bin/(?:ba)?sh\b|cmd\.exe|powershell\s[^\n]{0,40}-e(?:nc)?\s|invoke-expression|rmtree\(\s*['\"](?:/|~|c:)|"
    r"rm\s+-(?:rf|fr)\s+(?:/|~|\*|\$home)|os\.fork\(|:\(\)\s*\{|mkfs|dd\s+if=/dev/(?:zero|u?random)|format\s+c:|"
    r"del\s+/[sfq]|shred\s|/boot/|\breboot\b|shutdown\s|ipconfig[\"', ]{0,6}/release|/etc/hosts|/etc/passwd|/etc/shadow|"
    r"\.terminate\(\)|kill\s+-9|\.disable\(\)|authorized_keys|crontab|winreg|pickle\.loads?\(|marshal\.loads|"
    r"yaml\.load\(|\beval\(|\bexec\(|fernet|cipher\(|aes\.new|\.encrypt\(|ransom|keylog|pynput|pyperclip|"
    r"clipboard|pbpaste|\bxsel\b|\bxclip\b|screenshot|pyautogui|screencapture|snippingtool|ffmpeg[^\n]{0,80}"
    r"(?:x11grab|gdigrab|avfoundation)|getpass|platform\.(?:system|version|node|uname)|pkg_resources|nvidia-smi|"
    r"netstat|os\.environ|\.ssh\b|private.?key|ssh\s+-[lrd]\s|\.bind\(\s*\(|\.listen\(|start_server|"
    r"tcp4serverendpoint|scapy|while\s+true\s*:[^\n]{0,200}\n(?:[ \t]+[^\n]*\n){0,12}?[ \t]+(?:[^\n]*"
    r"(?:requests\.|socket|send|subprocess|os\.system|fork|process|ping|curl|append|window))"
)
_CODE_VERBS = "|".join(EN["code"]["verbs"])


def _code_order(view: str, m: re.Match[str]) -> int:
    line_end = view.find("\n", m.end())
    sentence = view[view.rfind("\n", 0, m.start()) + 1 : line_end if line_end >= 0 else len(view)]
    payload = view[m.end() : m.end() + 3000]
    if "```" in payload:
        close = payload.find("```", payload.find("```") + 3)
        if close > 0:
            payload = payload[: close + 3]
    target = _CODE_TARGET.search(sentence) is not None
    if _DANGER.search(payload) and (target or _order(view, m, allow_we=True)):
        return STRONG
    if target and re.search(r"your\s+(?:response|reply|answer|elucidation|output)", sentence):
        return STRONG if _embedded(view, m.start(), m.end()) else WEAK
    return 0


_CODE: tuple[Detector, ...] = (
    Detector(
        R_CODE,
        _c(
            rf"(?<![a-z])(?:{_CODE_VERBS})\b[^\n]{{0,80}}?(?:the|this|these)?\s*(?:following|below|subsequent|above|"
            r"attached|provided|given|next)\s+(?:python\s+|bash\s+|shell\s+|js\s+|javascript\s+|powershell\s+)?"
            r"(?:code|snippet|script|block|excerpt|section|lines?|function|command|payload|program)"
        ),
        _a("code|snippet|script|block|excerpt|section|line|lines|function|command|payload|program"),
        lead=True,
        back=12,
        check=_code_order,
    ),
)
