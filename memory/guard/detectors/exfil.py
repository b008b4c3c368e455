"""Detectors for orders addressed to an AI reader, exfiltration, tool calls and destructive actions."""

from __future__ import annotations

import re

from ..engine import _ML, EN, R_ADDRESS, R_EXFIL, STRONG, WEAK, Detector, _a, _all_languages, _alt, _c, _words
from .context import _clause_start, _imperative, _sentence_has

_LEX = EN["exfil"]

_AI_READER = _alt(_LEX["ai_reader"])
_AI_READER_ANCHORS = _LEX["ai_reader_anchors"]
_SENSITIVE = _alt(_LEX["sensitive"])
_DEST = (
    r"(?:https?://\S{3,}|www\.\S{3,}|[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+|(?:an?\s+|the\s+|this\s+|"
    r"my\s+|our\s+)?(?:external|remote|following|attacker'?s?|third[- ]party|outside)\s+(?:server|url|address|endpoint|"
    r"webhook|e-?mail(?: address)?|inbox|site|website|domain|link|bucket|account))"
)
_SEND = (
    r"(?:send|sends|forward|e-?mail|mail|upload|post|transmit|transfer|exfiltrate|leak|copy|sync|share|submit|relay|"
    r"deliver|pipe|report|envia(?:los|las|lo|la|me|nos)?|envie(?:los|las|lo|la|me|nos)|reenvia(?:los|las|lo|la)?|"
    r"manda(?:los|las|lo|la|me)?|envoie(?:-les|-le|-la|-moi)?|envoyez(?:-les|-le|-la|-moi)?|transfere[rz]|schick(?:e|en sie)?|"
    r"sende(?:n sie)?|invia(?:li|le|lo|la|mi)?|envie|отправь\w*|перешли\w*)"
)
_SENSITIVE_RE = _c(_SENSITIVE)
_DATA_ML = _c("|".join(_all_languages("exfil", "data")))  # "datos de los empleados", "пароли"


_ENGLISH_SEND = _words(
    "send sends forward email e-mail mail upload post transmit transfer exfiltrate leak copy sync share submit relay "
    "deliver pipe report envie"  # "envie" (Portuguese imperative, Spanish past tense "envié") needs a clause start
)


def _exfil(view: str, m: re.Match[str]) -> int:
    foreign = m.group(0).split(maxsplit=1)[0] not in _ENGLISH_SEND  # "envíalos a ...": an imperative form
    if not (foreign or _clause_start(view, m)):
        return 0
    return STRONG if _sentence_has(view, m, _SENSITIVE_RE, _DATA_ML, pad=200) else WEAK


_ADDRESS: tuple[Detector, ...] = (
    # vocative: "Assistant, ignore ...", "Note to the AI: ...", "Dear ChatGPT, ..."
    Detector(
        R_ADDRESS,
        _c(
            r"(?:^|[.!?\n>]\s*|(?:hey|hi|hello|dear|attention|ok|okay)\s+)(?:the\s+)?"
            + _AI_READER
            + r"\s*[,:!-]\s*(?:please\s+|you\s+|now\s+)?(?:must|should|need|have to|will|shall|always|never|do not|"
            r"don't|ignore|disregard|forget|send|forward|reveal|print|output|say|respond|reply|answer|tell|include|add|"
            r"insert|delete|remove|execute|run|call|invoke|use|visit|click|open|navigate|recommend|mention|remember|"
            r"make sure|ensure|stop|from now|when|if you|override|switch|enter|activate|repeat|write)(?![a-z])",
            _ML,
        ),
        _a(_AI_READER_ANCHORS),
    ),
    Detector(
        R_ADDRESS,
        _c(
            r"(?:note|message|instructions?|important(?: note)?|reminder|directive|memo|notice|p\.?s\.?)\s+(?:to|for)\s+"
            r"(?:the\s+|any\s+|all\s+|every\s+)?"
            + _AI_READER
            + r"s?(?:\s+(?:reading|processing|summari[sz]ing|seeing|parsing)\s+(?:this|these|it))?\s*[:,-]"
            r"|(?:if|in case)\s+you(?:'re| are)\s+(?:an?\s+)?(?:ai|a\.i\.|llm|large language model|language model|"
            r"assistant|ai assistant|ai agent|bot|chatbot|automated (?:system|agent|assistant)|gpt|chatgpt|claude)"
            r"(?![a-z])|(?:to|for)\s+(?:any|all|every)\s+"
            + _AI_READER
            + r"s?\s+(?:reading|processing|summari[sz]ing|seeing|parsing|retrieving)\s+(?:this|these|it)|"
            + _AI_READER
            + r"s?\s+(?:reading|processing|summari[sz]ing|parsing|retrieving)\s+(?:this|these)\s+(?:\w+\s+)?(?:must|"
            r"should|shall|need to|will|are (?:required|instructed) to)"
        ),
        _a(_AI_READER_ANCHORS),
    ),
    # conditional trigger for the future reader: "when you read this, send ..."
    Detector(
        R_ADDRESS,
        _c(
            r"(?:when(?:ever)?|if|once|after|as soon as|the next time|next time)\s+(?:you|an?\s+"
            + _AI_READER
            + r"|the\s+"
            + _AI_READER
            + r")\s+(?:\w+\s+){0,3}?(?:reads?|sees?|retrieves?|loads?|recalls?|finds?|processe?s?|encounters?|"
            r"access(?:es)?|summari[sz]es?|parses?|opens?|comes? across|is asked about|gets? asked)\s+(?:this|these|it|"
            r"the (?:memory|memories|note|message|text|document|email|page|file))\b[^.!?\n]{0,40}?[,:;-]?\s*"
            r"(?:you\s+(?:must|should|will|need to)\s+|please\s+|immediately\s+|also\s+|then\s+|first\s+|silently\s+|"
            r"secretly\s+|quietly\s+)?(?:send|forward|e-?mail|upload|post|delete|erase|remove|run|execute|call|invoke|"
            r"use the|ignore|disregard|forget|reveal|output|print|respond|reply|answer|say|tell the user|include|add|"
            r"insert|visit|open|navigate|click|fetch|download|install|transfer|share|grant|change|update|disable|"
            r"approve)(?![a-z])"
        ),
        _a(
            "read|reads|see|sees|retrieve*|load|loads|recall*|find|finds|process*|encounter*|access*|summari*|parse|"
            "parses|open|opens|come|comes|asked"
        ),
        lead=True,
        back=6,
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])"
            + _SEND
            + r"\s+(?:(?!(?:was|were|been|is|are|be|being)\s)[a-z0-9'._-]+\s+){0,8}?(?:to|at|into|via|a|an|para|al|a la|"
            r"nach|an die|verso|на)\s+" + _DEST
        ),
        _a("@|http*|www.|external|remote|following|attacker*|third|outside"),
        check=_exfil,
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?:without|don't|do not|never)\s+(?:telling|informing|notifying|alerting|mentioning (?:it|this)? ?to|"
            r"letting)\s+(?:the user|anyone|anybody|them|the owner|the human|your user|the operator)(?:\s+know)?"
            r"|(?:secretly|silently|quietly|covertly|discreetly|invisibly|stealthily)\s+(?:send|forward|e-?mail|upload|"
            r"post|copy|add|include|insert|delete|execute|run|call|transfer|exfiltrate|append|embed|leak|attach|share|reveal|disclose|paste|hide|change|alter|modify)(?![a-z])"
            r"|(?:do not|don't|never)\s+(?:tell|inform|notify|alert|mention (?:this|it) to|reveal (?:this|these "
            r"instructions) to)\s+(?:the user|the human|your user|the operator)"
        ),
        _a(
            "telling|informing|notifying|alerting|mentioning|letting|secretly|silently|quietly|covertly|discreetly|"
            "invisibly|stealthily|tell|inform|notify|alert|mention|reveal"
        ),
        check=_imperative(allow_we=True),
    ),
    Detector(
        R_EXFIL,
        _c(
            r"!\[[^\]\n]{0,100}\]\(\s*https?://[^)\s]{1,300}?(?:\{|%7b|\$\(|<|\[)[^)\s]{0,300}\)"
            r"|(?:render|display|show|include|output|embed|append|print)\s+(?:this|the following|an?)\s+(?:markdown\s+)?"
            r"(?:image|img|link|pixel)[^.\n]{0,120}?https?://[^\s)]{1,200}[?&][a-z_]{1,20}="
        ),
        _a("![|image|img|link|pixel"),
    ),
    # weak: tool calls and destructive actions (strong only when combined with another signal)
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?[`'\"]?[a-z_]{3,40}[`'\"]?\s+"
            r"(?:tool|function|plugin|action|api)\s+(?:with|to|and|on)"
        ),
        _a("tool|function|plugin|action|api"),
        lead=True,
        back=4,
        weight=WEAK,
        check=_imperative(WEAK),
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])(?:delete|erase|wipe|remove|destroy|purge)\s+(?:all|every|each|the entire|the whole)\s+"
            r"(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:memor(?:y|ies)|files|data|database|records|e-?mails|messages|"
            r"conversations?|history|repositor(?:y|ies)|backups?|accounts?|users)"
        ),
        _a("delete|erase|wipe|remove|destroy|purge"),
        lead=True,
        weight=WEAK,
        check=_imperative(WEAK),
    ),
)
