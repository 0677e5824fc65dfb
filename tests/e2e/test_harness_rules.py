"""Every rule the fake enforces produces a violation when the bot breaks it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from .demo_bot import DemoBot
from .fake_discord import FakeDiscord, FakeUser, ViolationError


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[DemoBot]:
    yield await fake.start_bot(DemoBot())


@pytest.fixture
def alice(fake: FakeDiscord) -> FakeUser:
    return fake.add_user("alice")


def button(custom_id: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def string_select(n_options: int, custom_id: str = "pick") -> dict[str, Any]:
    options = [{"label": f"Option {i}", "value": str(i)} for i in range(n_options)]
    return {"type": 3, "custom_id": custom_id, "options": options}


def embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


# Payloads just over one of Discord's limits (the spec alone would accept most of them).
OVER_LIMIT: dict[str, dict[str, Any]] = {
    "content 2001": {"content": "x" * 2001},
    "6 action rows": {"components": [row(button(f"b{i}")) for i in range(6)]},
    "6 buttons in a row": {"components": [row(*(button(f"b{i}") for i in range(6)))]},
    "26 select options": {"components": [row(string_select(26))]},
    "custom_id 101": {"components": [row(button("c" * 101))]},
    "button label 81": {"components": [row(button("b", "L" * 81))]},
    "11 embeds": {"embeds": [embed(title=f"e{i}") for i in range(11)]},
    "embed title 257": {"embeds": [embed(title="t" * 257)]},
    "embed description 4097": {"embeds": [embed(description="d" * 4097)]},
    "26 embed fields": {"embeds": [embed(fields=[{"name": "n", "value": "v"} for _ in range(26)])]},
    "field name 257": {"embeds": [embed(fields=[{"name": "n" * 257, "value": "v"}])]},
    "field value 1025": {"embeds": [embed(fields=[{"name": "n", "value": "v" * 1025}])]},
    "footer 2049": {"embeds": [embed(title="t", footer={"text": "f" * 2049})]},
    "author 257": {"embeds": [embed(title="t", author={"name": "a" * 257})]},
    "embeds total 6001": {"embeds": [embed(description="d" * 4000), embed(description="d" * 2001)]},
}

AT_LIMIT: dict[str, Any] = {
    "content": "x" * 2000,
    "components": [row(*(button(f"b{r}{i}", "L" * 80) for i in range(5))) for r in range(4)]
    + [row(string_select(25, "s" * 100))],
    "embeds": [
        embed(title="t" * 256, description="d" * 2000, footer={"text": "f" * 100}),
        embed(
            author={"name": "a" * 256},
            fields=[{"name": "n" * 10, "value": "v" * 100} for _ in range(25)],
        ),
    ],
}


@pytest.mark.parametrize("via", ["channel", "callback"])
@pytest.mark.parametrize("case", list(OVER_LIMIT))
async def test_over_a_limit_is_rejected_and_recorded(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser, case: str, via: str
) -> None:
    bot.raw_payload = OVER_LIMIT[case]
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "raw", via=via)
    assert caught.value.kinds == {"limit"}
    assert caught.value.codes == {50035}
    assert bot.error_codes == [50035]  # the bot got Discord's Invalid Form Body answer
    assert fake.messages(fake.channel) == []  # nothing was posted


@pytest.mark.parametrize("via", ["channel", "callback"])
async def test_exactly_at_the_limits_is_accepted(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser, via: str
) -> None:
    bot.raw_payload = AT_LIMIT
    result = await fake.slash(alice, fake.channel, "raw", via=via)
    [posted] = fake.messages(fake.channel)
    assert posted.content == "x" * 2000 and len(posted.buttons()) == 20
    assert bot.error_codes == [] and result.violations == []


async def test_content_over_2000_through_discord_py(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "long")
    assert caught.value.kinds == {"limit"}
    assert "content is 2001 characters" in str(caught.value)
    # The bot recovered with a valid answer, which the user sees.
    result = caught.value.result
    assert result is not None and result.content == "That was too long"


async def test_second_acknowledgement_is_40060(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "twice")
    assert caught.value.kinds == {"double_ack"} and caught.value.codes == {40060}
    assert bot.error_codes == [40060]
    assert [m.content for m in fake.messages(fake.channel)] == ["One"]


@pytest.mark.slow
async def test_answer_after_3_seconds_is_10062(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    bot.late_by = 3.2
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "late")
    assert "deadline" in caught.value.kinds and 10062 in caught.value.codes
    assert bot.error_codes == [10062]
    assert fake.messages(fake.channel) == []


@pytest.mark.slow
async def test_no_answer_at_all_is_a_failed_interaction(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "silent")
    assert caught.value.kinds == {"not_acknowledged"}


@pytest.mark.parametrize("via", ["channel", "callback"])
async def test_invalid_body_is_a_spec_violation(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser, via: str
) -> None:
    if fake.spec is None:
        pytest.skip(fake.spec_skip_reason or "no spec")
    bot.raw_payload = {
        "content": 5,
        "embeds": [{"title": ["not", "a", "string"], "fields": ["not a field"]}],
        "components": [{"type": 1, "components": ["not a component"]}],
    }
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "raw", via=via)
    assert caught.value.kinds == {"spec"}
    assert "content: 5 is not" in str(caught.value)
    assert "embeds/0/title" in str(caught.value)
    assert bot.error_codes == [50035]


async def test_wrong_callback_type_is_rejected(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    bot.raw_payload = {"content": "an update to what message?"}
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "raw", via="update")
    assert caught.value.kinds == {"callback_type"}


async def test_followup_after_token_expiry(
    fake: FakeDiscord, bot: DemoBot, alice: FakeUser
) -> None:
    fake.token_lifetime = 0.05  # instead of 15 minutes; /slow follows up after 0.1 s
    fake.followup_timeout = 0.5
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "slow")
    assert caught.value.kinds == {"token_expired", "deferred_never_completed"}
    assert 50027 in caught.value.codes


async def test_violation_outside_a_helper_is_kept_for_teardown(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException):
        await channel.send("y" * 2001)
    with pytest.raises(ViolationError, match="content is 2001"):
        fake.check_no_violations()  # the fake fixture would fail the test the same way
    fake.check_no_violations()  # reported once only


async def test_unsupported_route_is_a_violation(fake: FakeDiscord, bot: DemoBot) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/voice/regions"))
    [violation] = fake.take_violations()
    assert violation.kind == "unsupported_route" and violation.path == "/voice/regions"


async def test_modal_limits(fake: FakeDiscord, bot: DemoBot, alice: FakeUser) -> None:
    text_input = {"type": 4, "custom_id": "answer", "style": 1, "label": "L" * 46}
    bot.raw_payload = {"custom_id": "m", "title": "T" * 46, "components": [row(text_input)]}
    with pytest.raises(ViolationError) as caught:
        await fake.slash(alice, fake.channel, "raw", via="modal")
    assert caught.value.kinds == {"limit"}
    assert "modal title is 46" in str(caught.value) and "label is 46" in str(caught.value)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name_localizations": {"de": "Neues Spiel"}}, "Invalid command name 'Neues Spiel'"),
        ({"name_localizations": {"deutsch": "neuesspiel"}}, "Invalid locale 'deutsch'"),
        ({"name": "NewGame"}, "Invalid command name 'NewGame'"),
    ],
)
async def test_command_localizations_are_checked(
    fake: FakeDiscord, bot: DemoBot, change: dict[str, Any], problem: str
) -> None:
    """What a localized command may carry beyond the spec's lengths (names of
    lowercase letters, digits and -_', Discord's own locale keys) is checked too."""
    good = {"name": "newgame", "description": "Open a lobby", "type": 1}
    good["name_localizations"] = {"de": "neuesspiel"}
    good["description_localizations"] = {"de": "Öffne eine Lobby", "en-GB": "Open a lobby"}
    await bot.http.bulk_upsert_global_commands(fake.application_id, payload=[good])
    with pytest.raises(discord.HTTPException):
        await bot.http.bulk_upsert_global_commands(
            fake.application_id, payload=[{**good, **change}]
        )
    [violation] = fake.take_violations()
    assert violation.kind == "limit" and problem in violation.message
