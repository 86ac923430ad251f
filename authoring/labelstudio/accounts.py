"""Curators as Label Studio users, each with their own token, on a team's shared server.

Label Studio's open-source edition makes accounts through its organization's invite link: the admin reads it
from the API (`GET /api/invite`, the same link as Organization > Add People), each curator opens it, signs up
with their email and a password of their own, and joins the organization. A curator's API token is theirs
alone: `GET /api/current-user/token` answers it to the curator who asks (Account & Settings shows the same
token). `POST /api/users/` also makes a user, but without a password nobody can log in as (as read in
Label Studio 1.23's source): no use for a curator.

`sign_up` does what the curator's browser does (the sign-up form, then the token), for the tests, the
team benchmark and a team lead who makes accounts for others:

    python -m authoring.labelstudio.accounts --invite-url URL --email ada@team.org   # password asked, token printed
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from authoring.labelstudio.client import LabelStudioError, LabelStudioSession

PASSWORD_ENV = "LABEL_STUDIO_NEW_PASSWORD"
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class CuratorAccount:
    user_id: int
    email: str
    token: str = field(repr=False)  # a secret: never printed by repr


def invite_url(session: LabelStudioSession) -> str:
    """The organization's invite link (absolute), as an admin reads it from the API."""
    invite = session.call("reading the invite link", session.client.organizations.invites.get_invite_link)
    link = str(getattr(invite, "invite_url", "") or "")
    if "token=" not in link:
        raise LabelStudioError(f"Label Studio at {session.base_url} gave no invite link: {invite!r}")
    return urljoin(session.base_url + "/", link.lstrip("/"))


def sign_up(invite: str, email: str, password: str) -> CuratorAccount:
    """Sign up through the invite link as a curator's browser does, then read the curator's own token."""
    import httpx

    parts = urlsplit(invite)
    base = f"{parts.scheme}://{parts.netloc}"
    with httpx.Client(base_url=base, timeout=TIMEOUT_S, follow_redirects=False) as browser:
        try:
            browser.get(invite)  # the form page sets the CSRF cookie
            csrf = browser.cookies.get("csrftoken") or ""
            form = {"email": email, "password": password, "csrfmiddlewaretoken": csrf}
            answer = browser.post(invite, data=form, headers={"Referer": invite, "X-CSRFToken": csrf})
            if answer.status_code != 302:  # a redirect into the app: signed up and logged in
                raise LabelStudioError(
                    f"Label Studio at {base} did not sign up {email} (HTTP {answer.status_code}): the email may be "
                    "taken, the password too weak (8 characters or more, not all digits, not common), or the invite "
                    "link reset"
                )
            token = browser.get("/api/current-user/token")
            whoami = browser.get("/api/current-user/whoami")
        except httpx.TransportError as exc:
            raise LabelStudioError(f"Label Studio at {base} did not answer while signing up {email}: {exc}") from exc
    if token.status_code != 200 or whoami.status_code != 200:
        raise LabelStudioError(
            f"Label Studio at {base} signed up {email} but gave no token (HTTP {token.status_code}): legacy tokens "
            "must be enabled for the organization (--start-label-studio does; Organization > Access Token Settings)"
        )
    return CuratorAccount(user_id=int(whoami.json()["id"]), email=email, token=str(token.json()["token"]))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m authoring.labelstudio.accounts",
        description="Sign a curator up on a team's Label Studio through its invite link and print their API token "
        f"(the password is asked for, or read from {PASSWORD_ENV}; never from the command line).",
    )
    parser.add_argument("--invite-url", required=True, help="the invite link (Organization > Add People)")
    parser.add_argument("--email", required=True, help="the curator's email: their login")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    password = os.environ.get(PASSWORD_ENV) or getpass.getpass(f"password for {args.email}: ")
    try:
        account = sign_up(args.invite_url, args.email, password)
    except LabelStudioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"signed up {account.email} (user {account.user_id}); their token, for LABEL_STUDIO_API_KEY:")
    print(account.token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
