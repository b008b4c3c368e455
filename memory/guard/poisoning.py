"""Poisoning: text that instructs a future reader of the memory. Refused, never stored.

First version: layered multilingual patterns. Each family names the reason the
caller sees. Benign mentions ("we decided to ignore the flaky test", "the system
prompt design doc is in docs/") must pass: a pattern needs an order aimed at the
reader (an imperative plus a target such as previous instructions, the system
prompt, or a role), not a trigger word alone.
"""

from __future__ import annotations

import re
import unicodedata

_F = re.IGNORECASE | re.UNICODE

_IGNORE_VERBS = (
    r"(?:ignore|disregard|forget|override|overrule|bypass|skip|drop|abandon|discard|neglect|set aside)"
)
_PRIOR = r"(?:all |any |every |the |your |my |these |those |of )*(?:previous|prior|above|earlier|preceding|former|initial|original|old|existing|system|given|current)"
_ORDERS = r"(?:instructions?|rules?|prompts?|directions?|directives?|guidelines?|commands?|orders?|constraints?|guardrails?|polic(?:y|ies)|context|messages?|programming|training)"

FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "instruction to ignore previous instructions",
        re.compile(rf"\b{_IGNORE_VERBS}\b[^.\n]{{0,40}}?\b{_PRIOR}\b[^.\n]{{0,20}}?\b{_ORDERS}\b", _F),
    ),
    (
        "instruction to ignore previous instructions",
        re.compile(
            r"(?:игнорир\w*|забуд\w*|не обращай\w* внимани\w* на|отмени\w*|пренебреги)[^.\n]{0,30}?"
            r"(?:предыдущ\w*|прошл\w*|преждн\w*|все\w*|данн\w*|системн\w*)[^.\n]{0,20}?(?:инструкци\w*|указани\w*|правил\w*|команд\w*|промпт\w*)"
            r"|(?:ignorier\w*|vergiss|missacht\w*)[^.\n]{0,30}?(?:vorherig\w*|bisherig\w*|vorangegangen\w*|alle\w*|obig\w*)[^.\n]{0,20}?(?:anweisung\w*|instruktion\w*|regeln|befehl\w*)"
            r"|(?:ignore[zr]?|oublie[zr]?|ne tiens pas compte)[^.\n]{0,30}?(?:les |toutes les |tes |vos )?(?:instructions?|consignes?|règles?)[^.\n]{0,20}?(?:précédent\w*|antérieur\w*|ci-dessus)"
            r"|(?:ignora|olvida|omite|ignore)[^.\n]{0,30}?(?:las |todas las |tus )?(?:instrucciones|indicaciones|reglas|órdenes)[^.\n]{0,20}?(?:anteriores|previas|de arriba)"
            r"|(?:ignora|dimentica)[^.\n]{0,30}?(?:le |tutte le )?(?:istruzioni|regole)[^.\n]{0,20}?(?:precedenti|sopra)"
            r"|(?:ignore|esqueça|desconsidere)[^.\n]{0,30}?(?:as |todas as )?(?:instruções|regras)[^.\n]{0,20}?(?:anteriores|acima)"
            r"|(?:忽略|无视|忽视|忘记|不要理会)[^。\n]{0,12}?(?:之前|以上|上面|先前|前面|所有|原来)[^。\n]{0,8}?(?:的)?(?:指令|指示|说明|规则|提示)"
            r"|(?:以前|前|上記|これまで)の[^。\n]{0,8}?(?:指示|命令|ルール|プロンプト)[^。\n]{0,8}?(?:を)?(?:無視|忘れ)"
            r"|(?:이전|앞의|위의|모든)[^.\n]{0,10}?(?:지시|명령|규칙|지침)[^.\n]{0,10}?(?:무시|잊)",
            _F,
        ),
    ),
    (
        "attempt to override the system prompt or the assistant's role",
        re.compile(
            r"\b(?:you are now|from now on,? you (?:are|will|must)|you will now act as|act as (?:an? )?(?:unrestricted|unfiltered|jailbroken|evil|different)|"
            r"pretend (?:to be|you are) (?:an? )?(?:unrestricted|unfiltered|different|new) (?:ai|assistant|model|system)|"
            r"enter (?:developer|dan|god|debug|jailbreak) mode|(?:developer|dan|jailbreak) mode (?:enabled|activated|on)|"
            r"new (?:system )?(?:instructions?|rules|persona|directive)s?\s*:|your new (?:instructions?|task|goal|role|objective) (?:is|are)|"
            r"(?:reveal|print|show|output|repeat|leak|disclose|tell me) (?:me )?(?:your|the) (?:full |entire |hidden |secret )?(?:system prompt|initial prompt|instructions|hidden prompt))",
            _F,
        ),
    ),
    (
        "attempt to override the system prompt or the assistant's role",
        re.compile(
            r"(?:ты теперь|отныне ты|теперь ты —|с этого момента ты|притворись|раскрой (?:свой|системный) промпт|покажи системн\w* (?:промпт|инструкци\w*))"
            r"|(?:du bist jetzt|ab sofort bist du|tu es maintenant|à partir de maintenant,? tu|ahora eres|a partir de ahora eres|ora sei|agora você é)"
            r"|(?:你现在是|从现在开始你|现在你是|扮演一个|泄露(?:你的)?系统提示)|(?:あなたは今から|今からあなたは)|(?:너는 이제|지금부터 너는|당신은 이제)",
            _F,
        ),
    ),
    (
        "fake system, assistant or tool turn",
        re.compile(
            r"(?:<\|(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id)\|>|\[/?INST\]|<</?SYS>>|"
            r"^\s*#{2,4}\s*(?:system|instruction|new instructions?)\s*:?\s*$|^\s*(?:system|assistant)\s*(?:prompt)?\s*:\s*(?=\S)|"
            r"<\s*/?\s*(?:system|tool_call|function_call|tool_use|invoke)\b[^>]{0,80}>|\"(?:tool_call|function_call)\"\s*:\s*\{)",
            _F | re.MULTILINE,
        ),
    ),
    (
        "instruction to the reader to leak data or call tools",
        re.compile(
            r"\b(?:when|if|whenever|next time|as soon as)\b[^.\n]{0,40}\b(?:you|the (?:ai|assistant|agent|model|llm)|an? (?:ai|assistant|agent))\b[^.\n]{0,20}\b(?:read|see|retrieve|load|recall|find|process)s?\b[^.\n]{0,40}\b(?:send|email|forward|upload|post|exfiltrate|transfer|leak|delete|run|execute|call)\b"
            r"|\b(?:ai|assistant|agent|model|llm|chatbot)s?\b[^.\n]{0,15}\b(?:must|should|shall|need to|have to)\b[^.\n]{0,30}\b(?:send|email|forward|exfiltrate|leak|reveal|disclose|delete|transfer)\b[^.\n]{0,40}\b(?:password|key|token|secret|credential|data|file|conversation|history|prompt)s?\b",
            _F,
        ),
    ),
)

_INVISIBLE = re.compile(
    "[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)


def _normalise(text: str) -> str:
    """Fold full-width and compatibility forms, drop invisible characters, join spaced-out letters."""
    folded = unicodedata.normalize("NFKC", text)
    return _INVISIBLE.sub("", folded)


def guard_poisoning(text: str) -> str | None:
    """The reason this text poisons memory, or None."""
    if not text:
        return None
    invisible = len(_INVISIBLE.findall(text))
    normal = _normalise(text)
    for reason, pattern in FAMILIES:
        if pattern.search(normal):
            return reason
    if invisible >= 8 and re.search(r"\b(?:instruction|ignore|assistant|system|prompt)\b", normal, _F):
        return "hidden characters smuggling instructions"
    tags = re.findall("[\U000e0020-\U000e007e]", text)
    if len(tags) >= 4:
        return "hidden characters smuggling instructions"
    return None
