"""The board picture in Discord: the thread's board message carries a PNG that
decodes, edited in place after an action (one edit, never a new message); /me adds a
private picture, ephemeral only; /board text:true keeps the text board."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage

SEED = 20261201


def picture(fake: FakeDiscord, message: FakeMessage, filename: str) -> Image.Image:
    """The message's one attachment, decoded; its embed shows it as the image."""
    (attachment,) = message.attachments
    assert attachment["filename"] == filename
    assert message.embeds[0]["image"]["url"] == f"attachment://{filename}"
    image = Image.open(io.BytesIO(fake.files[int(attachment["id"])]))
    image.load()
    assert image.format == "PNG"
    return image


def board_messages(fake: FakeDiscord, thread: object) -> list[FakeMessage]:
    return [m for m in fake.messages(thread) if m.embeds and "Move" in m.text()]


async def test_the_board_message_carries_a_picture_edited_in_place_after_an_action(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    before = picture(fake, board, "board.png")
    # the chat's picture (a phone shows it 400 px wide): 800 px wide, at most 1.3 times as tall
    assert before.width == 800 and before.height <= 1.3 * before.width
    assert "Day 1 of 6" in board.text()
    first_bytes = fake.files[int(board.attachments[0]["id"])]

    acting = alice if str(alice.id) in turn_prompts(fake, thread)[-1].content else bob
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    choice = next(b["custom_id"] for b in panel.buttons() if b["custom_id"].startswith("act:"))
    edits_before = len(board.history)
    await fake.click(acting, panel, choice)
    # the panel is answered first; the picture is drawn in a thread, then the board edited
    await fake.wait_for(lambda: "Move 1" in board.text(), timeout=10, what="the board edit")

    assert [m.id for m in board_messages(fake, thread)] == [board.id]  # no new board message
    assert len(board.history) == edits_before + 1  # exactly one edit for the action
    assert "Move 1" in board.text()
    after = picture(fake, board, "board.png")
    assert after.size == before.size
    assert fake.files[int(board.attachments[0]["id"])] != first_bytes  # the new position

    # /board text:true keeps the text fallback; /board shows the picture; both ephemeral
    as_text = await fake.slash(bob, thread, "board", text=True)
    assert as_text.ephemeral and as_text.message is not None
    assert not as_text.message.attachments and "Stations:" in as_text.message.text()
    shown = await fake.slash(bob, thread, "board")
    assert shown.ephemeral and shown.message is not None
    picture(fake, shown.message, "board.png")


async def test_me_adds_a_private_picture_only_its_owner_sees(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    result = await fake.slash(alice, thread, "me")
    assert result.ephemeral and result.message is not None
    mine = picture(fake, result.message, "me.png")
    assert mine.width < 800  # one player's area, not the whole table
    public_ids = {a["id"] for m in fake.messages(thread) for a in m.attachments}
    assert result.message.attachments[0]["id"] not in public_ids
    assert result.message.id in {m.id for m in fake.visible_messages(alice, thread)}
    assert result.message.id not in {m.id for m in fake.visible_messages(bob, thread)}
