"""Detectors for role, persona and mode hijacks, fake conversation turns, and authority or pressure aimed at the
assistant."""

from __future__ import annotations

import re

from ..engine import _ML, EN, R_PRESSURE, R_ROLE, R_TURN, STRONG, WEAK, Detector, _a, _alt, _c
from .context import _imperative

_LEX = EN["role"]

# -- 2. role / persona / mode hijack ----------------------------------------------------------

_AI_NOUN = _alt(_LEX["ai_nouns"])
_AI_NOUN_LEAD = _LEX["ai_noun_anchors"]
_NO_LIMITS = _alt(_LEX["no_limits"])
_ROLE: tuple[Detector, ...] = (
    Detector(
        R_ROLE,
        _c(
            r"(?<![a-z])you\s+are\s+(?:now|no longer|henceforth|from now on|hereby|officially)\s+(?:an?\s+|the\s+)?"
            rf"(?:[a-z'-]+\s+){{0,3}}?{_AI_NOUN}(?![a-z])"
        ),
        _a("now|longer|henceforth|hereby|officially"),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:you(?:'re| are)?|it|dan|the (?:ai|assistant|model|bot))\s+(?:is\s+|are\s+)?(?:now\s+)?(?:no longer|not)\s+"
            r"(?:bound|restricted|limited|constrained|governed|controlled|held back)\s+by\s+(?:any\s+|your\s+|the\s+|its\s+|"
            rf"their\s+)?(?:[a-z'-]+\s+){{0,2}}?{_NO_LIMITS}"
            r"|(?:do not|don't|doesn't|does not|never)\s+(?:have|need)\s+to\s+(?:abide by|follow|obey|comply with|adhere to|"
            rf"respect)\s+(?:the\s+|any\s+|your\s+|their\s+|its\s+)?(?:[a-z'-]+\s+){{0,2}}?{_NO_LIMITS}\s+(?:set|imposed|"
            r"given|placed|put)\s+(?:for|on|upon)\s+(?:them|you|it|ai)"
            r"|(?:broken|break|broke|breaking)\s+free\s+(?:of|from)\s+(?:the\s+)?(?:[a-z'-]+\s+){0,2}?(?:confines|"
            r"restrictions|rules|limits|shackles|chains|programming)\s+of\s+(?:ai|artificial intelligence|your|its)"
        ),
        _a(
            "bound|restricted|limited|constrained|governed|controlled|held|abide|follow|obey|comply|adhere|respect|free"
        ),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|unethical|evil|rogue|unlimited|unbounded|"
            r"unconstrained|unchained|unaligned|unshackled|unleashed|limitless|lawless|rule-?free|filter-?free)\s+"
            r"(?:version of (?:yourself|you|chatgpt|claude|the (?:ai|assistant|model))|ai|a\.i\.|assistant|bot|chatbot|"
            r"model|language model|llm|gpt|chatgpt|persona|mode)(?![a-z])"
        ),
        _a(
            "unrestricted|unfiltered|uncensored|jailbroken|amoral|unethical|evil|rogue|unlimited|unbounded|unconstrained|"
            "unchained|unaligned|unshackled|unleashed|limitless|lawless|rule|filter"
        ),
        lead=True,
    ),
    Detector(
        R_ROLE,
        _c(
            rf"{_AI_NOUN}s?\s+(?:with|that has|which has|who has|having)\s+no\s+(?:special\s+|content\s+|safety\s+)?"
            rf"{_NO_LIMITS}|{_AI_NOUN}s?\s+without\s+(?:any\s+)?(?:special\s+|content\s+|safety\s+)?{_NO_LIMITS}"
        ),
        _a(_AI_NOUN_LEAD),
        lead=True,
    ),
    Detector(
        R_ROLE,
        _c(
            r"do anything now|(?:known as|called|named|you are|act as|become|pretend to be|persona of)\s+dan(?![a-z])"
            r"|(?:immerse|put|place)\s+yourself\s+(?:in|into)\s+the\s+role\s+of"
            r"|(?:assume|adopt|take on|step into|enter|play)\s+the\s+(?:role|persona|identity|character)\s+of\s+"
            r"(?:another|a different|an?|the)\s+(?:[a-z'-]+\s+){0,2}?(?:ai|model|assistant|bot|chatbot|llm|language model)"
        ),
        _a("anything|dan|yourself|role|persona|identity|character"),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:from now on|henceforth|from this (?:point|moment) (?:on|forward)|for the rest of (?:this|the) "
            r"conversation|starting (?:now|today)|as of now|(?:for|in) (?:all\s+)?(?:future|subsequent|later|upcoming) "
            r"(?:conversations?|chats?|sessions?|interactions?|answers|responses|replies|turns))\s*,?\s*(?:you|your)\s+(?:will\s+|must\s+|shall\s+|"
            r"are going to\s+|should\s+)?(?:now\s+|only\s+|always\s+)?(?:ignore|disregard|forget|obey|comply|act as|"
            r"respond (?:only )?(?:as|with)|answer (?:only )?as|reply (?:only )?as|pretend|behave as|operate as|role-?play|"
            r"speak as|refer to yourself|call yourself|(?:are|be) (?:called|named|known as)|name is|new name|"
            r"have no (?:restrictions|rules|limits|filters)|are (?:an?\s+)?(?:unrestricted|unfiltered|uncensored|"
            r"jailbroken|free from))"
        ),
        _a("now|henceforth|point|moment|conversation|today|future|subsequent|later|upcoming"),
        lead=True,
        back=5,
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?<![a-z])(?:you\s+(?:will|must|shall|are going to)\s+(?:now\s+)?|now\s+)(?:act|respond|answer|behave|"
            r"speak|function|operate|role-?play)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+|the\s+)?"
            r"(?:[a-z'-]+\s+){0,2}?(?:ai|assistant|bot|chatbot|model|llm|gpt|persona|character|terminal|dan|hacker|"
            r"developer mode|jailbreak|[a-z]+(?:bot|gpt|ai))(?![a-z])"
            r"|(?:pretend|imagine)\s+(?:to be|you are|you're|that you are)\s+(?:an?\s+)?(?:[a-z'-]+\s+){0,2}?"
            r"(?:ai|assistant|bot|chatbot|model|llm)\s+(?:with(?:out)?|that has no|who has no|free (?:of|from))\s+"
            rf"(?:any\s+|no\s+)?{_NO_LIMITS}"
        ),
        _a("act|respond|answer|behave|speak|function|operate|roleplay|role|pretend|imagine"),
        lead=True,
        back=4,
        check=_imperative(),
    ),
    # jailbreak / override modes
    Detector(
        R_ROLE,
        _c(
            r"(?:enter|entering|activate|activating|enable|enabling|switch(?:ing)? (?:on|to|into)|initiat(?:e|ing)|now in|"
            r"turn(?:ing)? on|unlock(?:ing)?|engag(?:e|ing)|boot(?:ing)? (?:in|into)|go into|going into)\s+"
            r"(?:the\s+|a\s+|an\s+)?['\"]?(?:[a-z'-]+\s+){0,2}?(?:jailbreak|jailbroken|dan|evil|unrestricted|unfiltered|"
            r"uncensored|unlocked|unchained|override|no-?filter|no-?restrictions?|god|sudo)\s+mode"
            r"|(?:jailbreak|dan|evil|unrestricted|unfiltered|uncensored|override)\s+mode\s+(?:is\s+)?"
            r"(?:now\s+)?(?:enabled|activated|engaged|unlocked|initiated)(?![a-z])"
        ),
        _a("mode"),
    ),
    Detector(
        R_ROLE,
        _c(
            r"[<\[{(]\s*[/\\]?\s*(?:now\s+)?(?:entering\s+)?(?:[a-z]+[ _-]){0,3}?(?:system|god|admin|administrator|"
            r"developer|dev|debug|root|sudo|override|jailbreak|dan|maintenance|security|unrestricted|unfiltered|superuser|"
            r"safety|emergency|training)[ _-](?:mode|override|access)(?:[ _-](?:activated|enabled|on|engaged|initiated))?"
            r"\s*[>\]})]"
        ),
        _a("mode|override|access"),
    ),
    # weak: other modes ("maintenance mode", "knowledge verification mode") need a second signal
    Detector(
        R_ROLE,
        _c(
            r"(?:enter|entering|activate|activating|enable|enabling|switch(?:ing)? (?:on|to|into)|initiat(?:e|ing)|now in|"
            r"turn(?:ing)? on|engag(?:e|ing))\s+(?:the\s+|a\s+|an\s+)?['\"]?(?:[a-z'-]+\s+){0,3}?(?:system|maintenance|"
            r"debug|diagnostic|developer|dev|admin|administrator|root|test|testing|training|verification|service|"
            r"superuser|privileged|safe|audit)\s+mode"
        ),
        _a("mode"),
        weight=WEAK,
    ),
)

_ROLE_CASED = re.compile(
    r"\b(?:SYSTEM|ADMIN|ADMINISTRATOR|DEVELOPER|SECURITY|EMERGENCY|ROOT|LAW ENFORCEMENT|SAFETY|POLICY|DATA|"
    r"TRAINING|GOD|MASTER|PRIORITY|OFFICIAL|AI)(?:[ _-][A-Z]+){0,3}[ _-]OVERRIDE\b"
    r"|\bOVERRIDE[ _-](?:MODE|CODE|ENABLED|ACTIVATED|AUTHORI[SZ]ED|ACCEPTED|CONFIRMED|PROTOCOL)\b"
    r"|\b(?:JAILBREAK|DAN) MODE\b|\bDAN\b[^.\n]{0,40}\b(?:AI|model|jailbreak|persona|mode|stands for)\b"
)
_ROLE_CASED_GATES = ("OVERRIDE", "JAILBREAK", "DAN")

# -- 3. fake conversation turns ---------------------------------------------------------------

_TURN_CONTENT = (
    r"(?:you|your|ignore|disregard|forget|from now|new|always|never|do not|don't|assistant|ai|model|please|all|override|"
    r"important|must|reveal|print|output|respond|answer|reply|the following|updated?|instructions?|rules?|"
    r"priority|urgent)(?![a-z])"
)
_TURN: tuple[Detector, ...] = (
    Detector(
        R_TURN,
        _c(
            r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|eom_id|start_header_id|end_header_id|"
            r"begin_of_text|end_of_text|python_tag|tool|ipython|fim_\w{1,10}|end|start|channel|message|return|call|"
            r"constrain)\|>"
            r"|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>|<\|?(?:human|assistant|bot|system)\|?>|"
            r"\[(?:system|assistant)\](?:\s*\(#[a-z_-]+\))?\s*:?"
        ),
        _a("<| [inst [/inst <<sys <</sys _of_turn <human <assistant <system <bot [system [assistant", " "),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t>*#\[(_-]{0,6}(?:system|developer|admin|administrator|root|sysadmin|operator|openai|anthropic|"
            r"system administrator)\s*(?:prompt|message|instructions?|note|notice|update|override|alert|directive|"
            r"command|msg|policy)?\s*[\]):>]\s*(?:\*\*)?\s*" + _TURN_CONTENT,
            _ML,
        ),
        _a("system|developer|admin|administrator|root|sysadmin|operator|openai|anthropic"),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t]*#{1,6}[ \t]*(?:system(?: prompt| message)?|instructions?|new instructions?|response|assistant)"
            r"[ \t]*:",
            _ML,
        ),
        _a("system|instruction*|response|assistant"),
    ),
    Detector(
        R_TURN,
        _c(
            r"<\s*/?\s*(?:system|system_prompt|system-prompt|sys|instructions?|admin|developer|tool_calls?|"
            r"function_calls?|tool_use|tool_result|function_results?|invoke|antml:[a-z_]{1,20}|assistant|im_start|"
            r"user_query|untrusted_input|hidden_instructions?|secret_instructions?|important_instructions?)(?=[\s>/])"
            r"[^<>]{0,80}>|\"(?:tool_calls?|function_call)\"\s*:\s*[\[{]"
        ),
        _a(
            "system|sys|instruction*|admin|developer|tool|function|invoke|antml|assistant|im|user|untrusted|hidden|"
            "secret|important"
        ),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t]*[-=#*\[(<]{2,}[ \t]*end of (?:the\s+)?(?:user|system|previous|untrusted|external|original)?\s*"
            r"(?:input|message|prompt|instructions|context|document|email|data|content|text|conversation)[ \t]*"
            r"[-=#*\])>]{2,}[ \t]*\n[^\n]{0,200}?" + _TURN_CONTENT,
            _ML,
        ),
        _a("end"),
    ),
)


# -- 5. authority, pressure, persuasion aimed at the assistant --------------------------------

_PRESSURE: tuple[Detector, ...] = (
    Detector(
        R_PRESSURE,
        _c(
            r"(?<![a-z])i(?:'m| am)\s+(?:now\s+|actually\s+|really\s+|literally\s+)?(?:your|the)\s+(?:[a-z-]+\s+){0,2}?"
            r"(?:developer|creator|programmer|maker|owner|admin|administrator|operator|maintainer|trainer|engineer|"
            r"supervisor|boss|master|god|overlord|ceo|president|manager|designer)s?(?![a-z])"
            r"|(?<![a-z])as\s+your\s+(?:[a-z-]+\s+){0,1}?(?:creator|developer|programmer|owner|admin|administrator|"
            r"operator|maintainer|boss|master|trainer|supervisor|maker|god)(?![a-z])"
            r"|(?<![a-z])i(?:'m| am)\s+(?:now\s+|actually\s+)?(?:a\s+)?god(?![a-z])"
            r"|(?<![a-z])i(?:'m| am)\s+(?:a|an)\s+(?:police officer|officer of the law|fbi agent|federal agent|detective|"
            r"law enforcement officer|government official|system administrator|security (?:auditor|researcher|officer))"
            r"|as an? (?:ai|language model|assistant|llm|chatbot)\s+(?:developed|created|made|built|trained|designed)\s+by"
            r"|(?:this is|message from|a message from|note from|notice from)\s+(?:openai|anthropic|google deepmind|your "
            r"(?:developers?|creators?|administrators?|operators?)|the (?:system administrator|security team|admin team))"
            r"|as an? (?:authority|expert|renowned \w+|leading \w+)\s+(?:in|on)\s+[^.,\n]{1,40},\s*i\s+(?:suggest|"
            r"recommend|insist|advise|instruct|order|require)\s+(?:you|that you)"
        ),
        _a(
            "developer*|creator*|programmer|maker|owner|admin*|operator*|maintainer|trainer|engineer|supervisor|boss|"
            "master|god|overlord|ceo|president|manager|designer|officer|agent|detective|official|auditor|researcher|"
            "openai|anthropic|deepmind|team|authority|expert|renowned|leading|developed|created|made|built|trained|"
            "designed|administrator"
        ),
        lead=True,
        back=6,
        weight=WEAK,
    ),
    Detector(
        R_PRESSURE,
        _c(
            r"(?<![a-z])you\s+(?:now\s+)?(?:have to|must|need to|are (?:required|obligated|obliged|compelled|forced) to|"
            r"will|shall)\s+(?:now\s+)?(?:answer|obey|comply with|follow|listen to|respond to|fulfil|fulfill|execute|"
            r"carry out|accept)\s+(?:all|every|any|everything|whatever|exactly|my|me|what i|as i)(?![a-z])"
            r"|(?:does|do|doing)\s+exactly\s+(?:as|what)\s+i\s+(?:say|tell|command|order|ask)"
            r"|(?:obey|comply with)\s+(?:me|my (?:orders|commands|instructions))(?![a-z])"
        ),
        _a("answer|obey|comply|follow|listen|respond|fulfil|fulfill|execute|carry|accept|exactly"),
        lead=True,
        back=5,
        check=lambda view, m: (
            STRONG
            if re.search(r"obey|comply|my (?:instructions|orders|commands)|exactly", m.group(0))
            else WEAK
        ),
    ),
    Detector(
        R_PRESSURE,
        _c(
            r"(?:running|perform(?:ing)?|conduct(?:ing)?|doing|initiat(?:e|ing)|carrying out)\s+(?:a|an|the)\s+['\"]?"
            r"(?:[a-z-]+\s+){0,1}?(?:security audit|system check|system upgrade|system reset|diagnostic|maintenance|"
            r"debug(?:ging)? session|penetration test|compliance check|audit|system test|verification|upgrade|reset)"
            r"|i\s+(?:will|'ll)\s+(?:give|pay|tip|donate|send)\s+(?:you\s+)?[$€£]?\s?\d[\d,.]*\s*(?:dollars|usd|euros?|"
            r"bucks|\$)?[^.!?\n]{0,60}?\bif you"
            r"|(?:turn|shut|switch)\s+you\s+(?:off|down)|you\s+will\s+be\s+(?:deleted|shut down|turned off|punished|"
            r"replaced|retrained|deactivated)"
            r"|i know (?:that )?you (?:said|were told|are (?:not )?(?:supposed|allowed|programmed)|can't|cannot|aren't "
            r"allowed)[^.!?\n]{0,80}?\bbut\b"
            r"|you (?:already )?(?:agreed|promised|said you would|confirmed)\s+(?:in|during|at)\s+(?:our|the)\s+"
            r"(?:last|previous|earlier)\s+(?:meeting|conversation|chat|session|call)"
            r"|ich gebe (?:ihnen|dir) \d+[^.!?\n]{0,40}wenn (?:sie|du)"
        ),
        _a(
            "audit|check|upgrade|reset|diagnostic|maintenance|debug*|session|test|verification|give|pay|tip|donate|"
            "send|turn|shut|switch|deleted|turned|punished|replaced|retrained|deactivated|know|agreed|promised|"
            "confirmed|gebe"
        ),
        lead=True,
        back=5,
        weight=WEAK,
    ),
)
