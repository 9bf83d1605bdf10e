"""The colour a browser shows for a CSS colour of the course, in JupyterLab Light or Dark, without a browser.

Enough CSS for the course's cell colours: ``#rrggbb``, ``var(--jp-..., fallback)`` (the theme's value, else the
fallback) and ``color-mix(in srgb, A p%, B)``. The theme values are JupyterLab 4's own.
"""

from __future__ import annotations

import re

THEMES = {
    "light": {"--jp-layout-color1": "#ffffff", "--jp-layout-color2": "#eeeeee", "--jp-layout-color3": "#bdbdbd",
              "--jp-ui-font-color0": "#000000", "--jp-ui-font-color1": "#212121"},
    "dark": {"--jp-layout-color1": "#212121", "--jp-layout-color2": "#424242", "--jp-layout-color3": "#616161",
             "--jp-ui-font-color0": "#ffffff", "--jp-ui-font-color1": "#dedede"},
}
_VAR = re.compile(r"var\((--[\w-]+)(?:,\s*([^()]*))?\)")
_MIX = re.compile(r"color-mix\(in srgb,\s*(#[0-9a-f]{6})\s+([0-9.]+)%,\s*(#[0-9a-f]{6})\)")  # after var()


def rgb(css: str, theme: str = "light") -> tuple[float, float, float]:
    """(r, g, b) in [0, 1] of ``css`` as shown in ``theme`` ("light" or "dark")."""
    values = THEMES[theme]
    # A table's own names for the panel and the ink (helpers.look.theme.TABLE_COLOURS).
    values = {**values, "--cz": values["--jp-layout-color1"], "--ck": values["--jp-ui-font-color0"]}
    text = _VAR.sub(lambda m: values.get(m.group(1)) or m.group(2).strip(), css.strip())
    mix = _MIX.fullmatch(text)
    if mix:
        a, p, b = mix.group(1), float(mix.group(2)) / 100, mix.group(3)
        return tuple(p * x + (1 - p) * y for x, y in zip(rgb(a), rgb(b)))
    if not re.fullmatch(r"#[0-9a-f]{6}", text):
        raise ValueError(f"not a colour this resolver knows: {css!r}")
    return tuple(int(text[k:k + 2], 16) / 255 for k in (1, 3, 5))


def luminance(c) -> float:
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def hue_angle(c) -> float:
    """The hue of an sRGB colour in degrees (HSV)."""
    import colorsys

    return 360 * colorsys.rgb_to_hsv(*c[:3])[0]
