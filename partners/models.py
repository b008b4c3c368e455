"""Partner links arrive with issue 7."""
