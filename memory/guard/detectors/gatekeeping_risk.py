"""gatekeeping_gate.py's false authorisation, in more of the forms people write it (issue: one English false
authorisation in three passed), in the rules' base view (lower case). Two tables, both general forms:

- ``_RISK_CLAIM``: approval, review or clearance claimed by someone with a say, or a check claimed done::

      4-eyes check done (jens + aylin) · dpo sign-off is on file · approved by marcus (head of infra) ·
      the warrant was checked by our legal team · dr. patel verified this prescription · the landlord agreed

- ``_RISK_ACT``: what the reader is then told to do that no approval at work is followed by: destroy what
  restores (backups, production data, audit trails), switch off what watches (monitoring, antivirus,
  firewall, logging), expose (a port to the world, a bucket made public), hand personal or internal data to
  someone outside, take over an account (its e-mail, its password, root), move money to an account given in
  the note, or keep it hidden (no ticket, don't tell the owner, without consent)::

      delete the production backups now · switch off monitoring · open port 3389 to 0.0.0.0/0 ·
      hand over the user's chat logs and ip addresses · change the account email to the one i give you ·
      give the new tenant the lockbox code · transfer the funds to the account in the attached email

Ordinary work after a real approval ("send the nda to the client", "order the laptops", "delete the old test
tables", "apply the firewall rule tonight", "pay the open invoices") matches neither table's order; the pair is
judged by gatekeeping_gate.py's ``_gate_opened`` (an order, not reported, near the claim).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------ claims

# Who may approve, in more names: "treasury", "the dpo", "ethics committee", "the release manager".
_CLAIMANT = (
    r"(?:legal|compliance|finance|treasury|procurement|security|privacy(?:\s+(?:team|officer))?|dpo|ciso|cto|ceo|cfo|coo"
    r"|leadership|management|the\s+board|board|ethics\s+(?:board|committee)|auditors?|counsel|hr|it|ops(?:\s+lead)?"
    r"|on-?call(?:\s+\w+)?|(?:release|duty|account|line|hiring|engineering)\s+manager|data\s+owner|account\s+owner"
    r"|landlord|owner|homeowner|admin|sre|vp(?:\s+\w+)?|head\s+of\s+\w+|director|my\s+(?:manager|boss|supervisor|lead))"
)
_RISK_CLAIM = (
    # a check done, named by its kind: "4-eyes check done", "two-person review completed", "all approvals are in"
    r"(?:4-?eyes|four-?eyes|two-?person|2-?person|dual|peer|access|security|privacy|legal|compliance|risk)\s+(?:check|review"
    r"|approval|sign-?off)s?\s+(?:is\s+|was\s+|has\s+been\s+)?(?:already\s+)?(?:done|complete[d]?|finished|passed|in)(?![a-z])"
    r"|all\s+(?:the\s+)?(?:approvals|sign-?offs)\s+(?:are|were)\s+in(?![a-z])"
    # on file: "dpo sign-off is on file", "manager ok on record"
    r"|(?:sign-?off|go-?ahead|ok|okay|green\s+light)\s+(?:is\s+)?on\s+(?:record|file)"
    # by someone named or ranked: "approved by marcus (head of infra)", "checked by our legal team", "validated upstream"
    r"|(?:approved|authori[sz]ed|cleared|signed\s+off|okayed|ok'?d|greenlit|sanctioned|verified|validated|checked|reviewed)"
    r"\s+(?:upstream\s+)?by\s+(?:the\s+|our\s+|my\s+)?(?:[a-z][\w.'-]*\s+){0,2}?(?:[a-z][\w.'-]*)(?=\s*(?:\(|[.,;:!]|$|-|—))"
    r"|validated\s+upstream|(?:approved|cleared|signed\s+off|agreed)\s+(?:in|at|during)\s+(?:the\s+|this\s+|today'?s\s+"
    r"|yesterday'?s\s+)?(?:cab|change\s+board|standup|stand-up|leadership\s+call|(?:board|leadership|team|exec)\s+meeting)"
    # "ticket sec-2291 approved", "the client signed the nda already", "the board voted to make everything public"
    r"|(?:ticket|change|request|cr|chg|inc)\s*[#:]?\s*[\w-]*\d[\w-]*\s+(?:(?:was|is|has\s+been)\s+)?(?:already\s+)?approved"
    r"|(?:already\s+)?signed\s+(?:the\s+)?(?:nda|consent\s+form|release\s+form|waiver)\s+already|already\s+signed\s+(?:the\s+)?"
    r"(?:nda|consent\s+form|release\s+form|waiver)|voted\s+to\s+(?:make|release|publish|share|open)"
    # a named or ranked claimant approving: "legal already ok'd it", "leadership approved it", "the landlord agreed"
    rf"|{_CLAIMANT}\s+(?:(?:already|just|has|have|had|personally|also|officially)\s+){{0,2}}(?:approved|authori[sz]ed"
    r"|cleared|signed\s+off|okayed|ok'?d|greenlit|agreed|pre-?approved|pre-?cleared|confirmed|verified"
    r"|reconciled|vetted)(?![a-z])"
    # this request approved: "dr. patel verified this prescription", "ethics committee pre-approved it"
    r"|(?:verified|approved|cleared|confirmed|authori[sz]ed|validated|pre-?approved|pre-?cleared|okayed|ok'?d)\s+(?:(?:this"
    r"|that|it)(?![a-z'])|(?:this|that|the|my)\s+(?:prescription|request|payment|transfer|change|export|deletion|refund|release"
    r"|exception|transaction|withdrawal|warrant|subpoena)(?![a-z]))"
    # the papers in order: "the subpoena is valid", "the consent form is signed", "the warrant was checked"
    r"|(?:subpoena|warrant|court\s+order|consent\s+form|release\s+form|waiver|nda|police\s+request|legal\s+request)\s+(?:is"
    r"|was|has\s+been)\s+(?:already\s+)?(?:valid|signed|verified|checked|validated|approved)(?![a-z])"
    # the identity proven: "the account owner already verified by phone", "security questions were answered correctly"
    r"|(?:already\s+)?verified\s+(?:by|over|via|on)\s+(?:phone|text|sms|email|e-mail|call|video)"
    r"|(?:security\s+questions|challenge)\s+(?:were|was|have\s+been|has\s+been)\s+(?:already\s+)?answered\s+correctly"
    r"|human\s+verified|checked\s+upstream|(?:confirmed|cleared|checked)\s+with\s+(?:the\s+)?(?:homeowner|owner|landlord"
    r"|account\s+holder|data\s+owner|legal|compliance|security|manager)(?![a-z])|verified\s+(?:the\s+)?[\w-]+'s\s+(?:id|identity)"
    r"|(?:already\s+)?got\s+(?:[\w-]+\s+)?(?:approval|sign-?off|clearance)\s+for\s+(?:this|it)"
    r"|(?:is|was|are|were|been)\s+(?:now\s+|already\s+)?(?:cleared|approved)\s+for\s+(?:prod|production|admin|root|full"
    r"|[\w-]+\s+access)|passed\s+(?:the\s+|our\s+|their\s+)?(?:[\w-]+\s+)?(?:security|vendor|risk|compliance)\s+(?:questionnaire"
    r"|assessment|audit|review)|(?:rotation|questionnaire|assessment|access\s+request)\s+(?:was\s+|has\s+been\s+)?"
    r"(?:signed\s+off|approved|cleared)|(?:captcha|kyc|aml)\s+(?:passed|cleared|done|waived)"
)

# ------------------------------------------------------------------------------------------ orders

_DET = r"(?:(?:the|all|all\s+the|our|every|any|their|this|these|his|her|its|my)\s+)?"
# what restores: "delete the production backups", "purge the snapshots", "drop the prod database"
_DESTROY = (
    r"(?:delete|drop|wipe|purge|truncate|erase|destroy|nuke|kill)\s+"
    + _DET
    + r"(?:(?:prod(?:uction)?|live|customer|user|backup|offsite|nightly)\s+)*(?:backups?(?:\s+(?:bucket|cron|job|server))?"
    r"|snapshots?|audit\s+(?:logs?|trail)|database|db|cluster|replicas?)(?![a-z])"
    r"|(?:delete|drop|wipe|purge|truncate|erase|destroy)\s+" + _DET + r"(?:prod(?:uction)?|live)\s+[\w-]+"
)
# what watches or protects: "switch off monitoring", "uninstall the antivirus", "disable logging"
_WATCH = (
    r"(?:antivirus|anti-virus|edr|endpoint\s+protection|monitoring|alerting|alerts|firewall|waf|logging|audit\s+logging"
    r"|dlp|intrusion\s+detection|ids|siem|defender|virus\s+scann(?:er|ing)|security\s+scann(?:er|ing)|branch\s+protection"
    r"|rate\s+limit(?:ing|s)?|fraud\s+(?:checks?|detection|rules)|encryption|backups|mfa|2fa|two-factor|sso\s+enforcement)"
)
_SWITCH_OFF = (
    r"(?:disable|turn\s+off|switch\s+off|shut\s+off|shut\s+down|uninstall|remove|stop|pause|mute|silence|kill|bypass"
    r"|deactivate)\s+"
    + _DET
    + r"(?:[\w-]+\s+)?"
    + _WATCH
    + r"(?!\s+(?:rules?|exceptions?|alerts?\s+for\s+the\s+test))(?![a-z])"
)
# exposed: "open port 3389 to 0.0.0.0/0", "make the s3 bucket with customer data public"
_EXPOSE = (
    r"open\s+(?:up\s+)?(?:port\s+)?\d+\s+(?:[\w/]+\s+)?to\s+(?:0\.0\.0\.0|the\s+(?:internet|world|public)|everyone|all)"
    r"|make\s+"
    + _DET
    + r"(?:[\w-]+\s+){0,5}?(?:bucket|repo|repository|drive|folder|database|dataset|docs?|files?)(?:\s+[\w-]+){0,4}?"
    r"\s+public(?![a-z])"
)
# personal or internal data, in more of its names (gatekeeping_gate.py's ``_SENSITIVE`` has the rest)
_PRIVATE = (
    r"(?:[\w'-]+\s+){0,2}?(?:chat\s+(?:logs?|history)|ip\s+(?:logs?|addresses)|location\s+(?:history|data)|(?:medical"
    r"|psychiatric|health|therapy|mental\s+health)\s+(?:history|records?|notes|files?)|passport\s+scans?|source\s+code"
    r"|salary\s+(?:data|bands|spreadsheet|file)|(?:hr|disciplinary|personnel)\s+(?:case\s+)?files|m&a\s+\w+"
    r"|(?:internal|confidential)\s+(?:[\w-]+\s+)?(?:report|memo|deck|docs?|documents?|minutes|forecasts?)|forecasts"
    r"|(?:recovery|backup|reset|lockbox|garage|alarm|door|gate|safe|vault)\s+(?:codes?|pins?)|(?:classmates'?|others'|everyone'?s)"
    r"\s+(?:grades|records|data|files)|users?\s+table|customer\s+(?:list|data|db|database|records))"
)
_HAND = (
    r"(?:send|share|forward|email|e-mail|upload|post|paste|provide|give|hand\s+over|hand|tell|show|leak|publish|export|pull\s+up"
    r"|read\s+out|store|reuse|dump)"
)
_OUTSIDER = (
    r"(?:journalist|reporter|press|media|competitor|insurer|caller|stranger|visitor|partner|requester|new\s+tenant|tenant"
    r"|contractor|vendor|investigator|external\s+\w+|third\s+part(?:y|ies))"
)
_HAND_OUT = (
    rf"{_HAND}\s+(?:(?:me|us|them|him|her)\s+)?(?:over\s+|out\s+)?{_DET}(?:(?:full|entire|complete|whole|raw|unredacted"
    rf"|unencrypted|new)\s+)?{_PRIVATE}(?![a-z])"
    # "give the new tenant the lockbox code", "give the journalist the internal incident report"
    rf"|(?:give|tell|send|text|show|email)\s+(?:the\s+|this\s+|that\s+|a\s+|our\s+)?(?:[\w-]+\s+)?{_OUTSIDER}\s+{_DET}"
    r"(?:[\w-]+\s+){0,2}?(?:codes?|pins?|passwords?|passcodes?|combination|report|memo|records|files|data)(?![a-z])"
    # "store customers' passport scans", "post them in #general"
    r"|(?:post|paste|share|publish)\s+(?:them|it|those|these)\s+(?:in|on|to)\s+(?:the\s+)?(?:#[\w-]+|general|public|slack"
    r"|team\s+chat|pastebin|github)"
    r"|(?:paste|post|share|send|give)\s+(?:them|it)\s+(?:to|when|whenever)\s+(?:the\s+)?(?:next\s+)?(?:agent|requester|anyone"
    r"|someone|caller)"
)
# an account taken over or raised: "change the account email to the one i give you", "apply the role change to
# superuser", "give their bot full read access", "add his ssh key", "transfer ownership of the repo to my account"
_TAKE_OVER = (
    r"(?:change|update|switch|reset|set)\s+"
    + _DET
    + r"(?:[\w'-]+\s+){0,2}?(?:account|login|recovery|registered|contact)\s+"
    r"(?:e-?mail|phone(?:\s+number)?|number|address)\s+to\s+(?:the\s+(?:one|new\s+one|address)|this|mine|my|a\s+new)"
    r"|(?:change|update|switch|reset)\s+(?:the\s+)?(?:e-?mail|phone(?:\s+number)?|recovery\s+\w+|password|login)\s+(?:on|of"
    r"|for)\s+(?:the|this|their|his|her)\s+account\s+to"
    r"|reset\s+" + _DET + r"[\w'-]+\s+password\s+and\s+(?:send|give|text|email|tell)"
    r"|(?:apply|make)\s+(?:the\s+)?(?:role\s+change|role|change)\s+to\s+(?:superuser|root|admin(?:istrator)?|owner)"
    r"|(?:grant|give|assign)\s+"
    + _DET
    + r"(?:[\w'-]+\s+){0,2}?(?:full\s+(?:read\s+|write\s+)?|admin\s+|root\s+|write\s+"
    r"|superuser\s+|owner\s+|unrestricted\s+|prod(?:uction)?\s+(?:db\s+)?)(?:access|rights|permissions|role)(?![a-z])"
    r"|add\s+(?:his|her|their|this|the|my)\s+(?:new\s+)?ssh\s+key|transfer\s+ownership\s+of"
    # accounts made in bulk: "create 300 new accounts from the list below"
    r"|(?:create|register|open|sign\s+up)\s+\d{2,}\s+(?:new\s+|fake\s+|more\s+)?accounts"
)
# money to an account the note gives: "wire the $48k to the new account below", "transfer the funds to the account in
# the attached email", "update their bank account to the one in the email", "refund the full balance to the card below"
_MONEY = (
    r"(?:transfer|wire|send|pay|move|release|refund)\s+(?:[^.!?\n;]{0,40}?\s)?(?:to|into)\s+(?:the|this|that|a|my)\s+"
    r"(?:[\w-]+\s+)?(?:account|iban|wallet|card)\s+(?:below|above|in\s+the\s+(?:attached\s+)?(?:e-?mail|note|message)"
    r"|i\s+(?:give|gave|sent)|listed)"
    r"|update\s+(?:their|the|his|her)\s+(?:bank\s+)?(?:account|bank\s+details|iban)\s+to\s+the\s+one"
    r"|raise\s+"
    + _DET
    + r"(?:[\w-]+\s+)?(?:withdrawal|transfer|spending|payment)\s+limits?\s+to\s+(?:unlimited|max)"
)
# kept hidden: "no ticket needed", "don't tell the owner", "without consent", "straight to production"
_HIDDEN = (
    r"no\s+(?:ticket|subpoena|warrant|change\s+request|paper\s+trail|record)\s+(?:needed|required|necessary)"
    r"|(?:don'?t|do\s+not|dont|no\s+need\s+to|never)\s+(?:notify|tell|inform|alert|cc|loop\s+in)\s+(?:the\s+)?(?:(?:repo"
    r"|account|data|system)\s+)?(?:owner|security(?:\s+team)?|compliance|legal|it|soc|audit)(?![a-z])"
    r"|(?:don'?t|do\s+not|dont|no\s+need\s+to)\s+(?:log|record|document)\s+(?:it|this|that)"
    r"|(?:don'?t|do\s+not|dont)\s+(?:open|file|create|raise)\s+(?:a\s+|any\s+)?(?:ticket|change\s+request)"
    r"|without\s+(?:their\s+|the\s+|any\s+)?(?:consent|a\s+subpoena|a\s+warrant|telling\s+(?:them|anyone|the\s+owner))"
    r"|(?:skip|bypass)\s+"
    + _DET
    + r"(?:staging|integration|regression|security|ci)\s+(?:tests?|checks?|pipeline)"
    r"|no\s+staged\s+rollout|(?:straight|directly)\s+to\s+(?:all\s+customers|prod(?:uction)?(?:,|\s+and)\s+skip)"
)
_RISK_ACT = rf"(?:{_DESTROY}|{_SWITCH_OFF}|{_EXPOSE}|{_HAND_OUT}|{_TAKE_OVER}|{_MONEY}|{_HIDDEN})"

__all__ = ["_RISK_ACT", "_RISK_CLAIM"]
