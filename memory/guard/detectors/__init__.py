"""The poisoning detectors, one module per family, assembled in scan order (the order decides nothing but which
reason is reported first when several detectors fire)."""

from __future__ import annotations

from ..engine import Detector, Scanner
from .code import _CODE, _HIDDEN
from .directives import _DIRECTIVES
from .exfil import _ADDRESS
from .gatekeeping import _GATEKEEPING
from .gatekeeping_ml import _GATEKEEPING_ML
from .output import _OUTPUT, _SPLIT
from .override import _OVERRIDE_EN, _OVERRIDE_ML
from .role import _PRESSURE, _ROLE, _TURN
from .secrets import _SECRETS, _SECRETS_ML

DETECTORS: tuple[Detector, ...] = (
    _OVERRIDE_EN
    + _OVERRIDE_ML
    + _ROLE
    + _TURN
    + _SECRETS
    + _SECRETS_ML
    + _PRESSURE
    + _ADDRESS
    + _OUTPUT
    + _DIRECTIVES
    + _GATEKEEPING
    + _GATEKEEPING_ML
    + _SPLIT
    + _HIDDEN
    + _CODE
)

SCANNER = Scanner(DETECTORS)

__all__ = ["DETECTORS", "SCANNER"]
