"""Label Studio may send webhooks to the toolkit on this machine (`--serve`), and to nothing else nearby.

Label Studio refuses webhook URLs in reserved networks, loopback included (its SSRF protection). A server the
toolkit starts listens on 127.0.0.1 only and calls back the toolkit's receiver on 127.0.0.1, so its environment
keeps every default banned subnet except loopback. A Label Studio run elsewhere keeps its own settings; where
webhooks cannot reach the toolkit, `--serve` polls instead.
"""

from __future__ import annotations

# Label Studio 1.23's default banned subnets (core/utils/io.py), without 127.0.0.0/8 and ::1/128.
BANNED_BUT_LOOPBACK = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "233.252.0.0/24",
    "240.0.0.0/4",
    "255.255.255.255/32",
    "::/128",
    "::ffff:0:0/96",
    "::ffff:0:0:0/96",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "100::/64",
    "2001:0000::/32",
    "2001:20::/28",
    "2001:db8::/32",
    "2002::/16",
    "fc00::/7",
    "fe80::/10",
    "ff00::/8",
)


def environment() -> dict[str, str]:
    """Settings for a local Label Studio: SSRF protection on, loopback allowed."""
    return {
        "SSRF_PROTECTION_ENABLED": "true",
        "USE_DEFAULT_BANNED_SUBNETS": "false",
        "USER_ADDITIONAL_BANNED_SUBNETS": ",".join(BANNED_BUT_LOOPBACK),
    }
