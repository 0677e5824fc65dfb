"""``/rules``: every rule that decides a game is named in its topic, in words a player
reads (no rule ids), the worked examples agree with the engines, and every answer fits
Discord's limits; in English and in German."""

from __future__ import annotations

import re
from collections import Counter

import discord
import pytest

import i18n
from cogs.helpers.rules_text import (
    RULE_TOPICS,
    TONTTU,
    TOPICS,
    UNKNOWN_TOPIC,
    WORKSHOP,
    rules_embed,
    rules_summary,
    topics_listing,
)
from cogs.table import Table
from engine.tonttu import rules as tonttu_rules
from engine.tonttu.data import (
    CATEGORIES,
    GIFT_CATEGORY_ID,
    GIFT_NAMES,
    GIFT_NEEDS,
    HOME_MATERIAL,
    MATERIAL_COPIES,
    MATERIAL_NAMES,
    MATERIAL_TYPE,
)
from engine.workshop import rules as workshop_rules
from engine.workshop.data import COMPONENTS, EXPECTED_TREE_SPACES, TOKENS_PER_TYPE

# Discord's limits (API reference, "Embed Limits" and application command choices).
EMBED_TITLE, EMBED_DESCRIPTION, EMBED_TOTAL = 256, 4096, 6000
EMBED_FIELDS, FIELD_NAME, FIELD_VALUE = 25, 256, 1024
CHOICES, CHOICE_NAME, CHOICE_VALUE = 25, 100, 100

toys_per_size = Counter(COMPONENTS.toy_points)
gold_gifts = Counter(
    CATEGORIES[GIFT_CATEGORY_ID[g]] for g, n in enumerate(GIFT_NEEDS) if "Gold" in n
)
reindeer_table = ", ".join(
    f"{n} → {workshop_rules.REINDEER_POINTS[n]}{' point' if n == 1 else ''}"
    for n in range(1, len(workshop_rules.REINDEER_POINTS))
)

# What each topic must name, as phrases of its text (case-insensitive, spaces as written).
# Numbers come from the engines where they hold them, so the text cannot drift from them.
FACTS: dict[str, list[str]] = {
    "workshop": [  # W-1, W-2
        "2–5 players",
        f"{workshop_rules.DAYS} days",
        "December 19 to 24",
        "2 toy cards from the top of the toy deck",
        f"all {workshop_rules.ELVES} Elves",
        "cannot pass",
        "order of joining",
        "drawn at random",
        "under the reindeer deck",
        "after Day 3 and Day 6",
        "first player marker passes",
    ],
    "shops": [  # W-3, W-3.1, W-3.2
        "4 spaces",
        "in order",
        "2, 3, 4 or 5 tokens",
        "1 point for each Elf of theirs already in that same shop",
        "your own earlier Elves count too",
        "only when at least one donated token there fits",
        "never more than your toys need",
        "Taking scores nothing",
    ],
    "mail": [  # W-3.3, W-3.6, W-4.2
        "up to 3",
        "up to 2",
        "one at a time",
        "from the top of the toy deck",
        "refilled at once",
        "at least 1 card",
        "may stop after any card",
        f"{workshop_rules.MAX_UNFINISHED} unfinished toys at most",
        f"with {workshop_rules.MAX_UNFINISHED} unfinished toys you cannot use the Mail Room",
        "Completed toys do not count",
        "never discard",
        "sleigh",
        "shuffled into a new deck",
    ],
    "stables": [  # W-3.4, W-7.2, W-8
        "3 spaces",
        "1, 2 or 3 materials",
        "Wood, Metal or Fabric for each one separately",
        "stall stays empty until the end of the day",
        f"{COMPONENTS.reindeer_count}, two each of",
        *COMPONENTS.reindeer_names,
        "names you hold are secret",
        "how many cards you hold is public",
    ],
    "tree": [  # W-3.5, W-8
        "two stations",
        "both in one day",
        f"{EXPECTED_TREE_SPACES} ornaments",
        "by its colour",
        "hidden until you take it",
        "empty space of your tree",
        "3 points",
        "2 materials of your choice",
        "2 Assembly",
        "1 toy card",
        "1 material of your choice and 1 point",
        "the star (3 points), 2 points, 1 Wood, 1 Metal, 1 Fabric, 1 Assembly",
        *COMPONENTS.colours,
    ],
    "tokens": [  # W-4, W-1.4
        "at once go onto one of your unfinished toys",
        "or be donated",
        "you score 1 point",
        "even if it fits",
        "tokens on a toy never move",
        "none of your toys can use are donated for you",
        f"({COMPONENTS.toy_count}, {max(toys_per_size.values())} of each size)",
        "3 tokens and score 4 points",
        "5 tokens and 7 points",
        "7 tokens and 11 points",
        "score its points at once",
        "until the next Inspection",
        f"{workshop_rules.MAX_UNFINISHED} unfinished toys at most",
        "completed toys do not count",
        "never be discarded",
        f"{TOKENS_PER_TYPE} tokens each",
        "gives what is left",
    ],
    "inspection": [  # W-5
        "after Day 3 and after Day 6",
        "completed toys beside your mat + ornaments on your tree",
        "highest Cheer scores {}, the next lower Cheer {}, then {}, then {}".format(
            *workshop_rules.INSPECTION_POINTS
        ),
        "Tied players each receive the full points of their rank",
        "the next lower Cheer takes the next rank",
        "Cheer of 0 is ranked like any other",
        "go into Santa's sleigh",
        "count at both",
    ],
    "workshop-end": [  # W-6
        "after the second Inspection",
        "1 point for each token on your unfinished toys",
        reindeer_table,
        f"plus {workshop_rules.DUPLICATE_REINDEER_POINTS} points for each card beyond the first",
        "most points",
        "most reindeer points",
        "share the win",
    ],
    "tonttu": [  # T-1, T-6
        "3–6 players",
        *(f"{name} {copies}" for name, copies in MATERIAL_COPIES.items()),
        f"({len(MATERIAL_TYPE)})",
        f"({len(GIFT_NAMES)})",
        *CATEGORIES,
        "2 to 4 material cards",
        *(f"most {category} need {home}" for category, home in HOME_MATERIAL.items()),
        f"only {max(gold_gifts.values())} gifts of each category need Gold",
        f"{tonttu_rules.GIFTS_PER_PLAYER} gifts per player",
        f"a hand of {tonttu_rules.HAND_SIZE} material cards",
        "1 face-up and 1 face-down",
        "one gift more than there are players",
        "one face-down material card per player",
        "rotation card starts on left",
        "never holds more than one face-down card",
        "hand sizes and who has already chosen",
        "speed",
    ],
    "round": [  # T-2
        "secretly chooses one card from their hand",
        "until the last player has chosen",
        "face up onto their owners' workbenches",
        "empty hand skips the pick",
        "exactly one card in the middle",
        "cannot pass",
        "until the last player has pointed",
        "refilled from the gift stack",
        "If the gift stack is now empty, the game ends",
        "passes their whole remaining hand",
        "left = the next player in seat order",
        "right = the previous one",
        f"New deal after {tonttu_rules.ROUNDS_PER_DEAL} rounds",
        f"after the {tonttu_rules.ROUNDS_PER_DEAL}th round of a deal each hand holds 1 card",
        "discarded",
        "rotation card is flipped",
        f"a new hand of {tonttu_rules.HAND_SIZE}",
        "discard pile is shuffled into a new deck",
    ],
    "resolve": [  # T-3
        "pointed at by exactly one player goes onto that player's workbench",
        "If that workbench has no face-down card, the material goes face down by default",
        "you may instead choose face up when you point",
        "already has a face-down card, it goes face up",
        "two or more players: nothing happens",
        "face-down card included",
        "pay exactly the cards the gift needs",
        "face-up cards first",
        "type appears on the gift",
        "single highest offer wins the gift and pays all those cards",
        "nobody gets the gift and nobody pays",
        "cannot pay lose nothing",
        "a paid face-down card is shown",
    ],
    "speed": [  # T-4
        "points once",
        "first valid point at a card wins it at once",
        "pays exactly the cards",
        "wasted",
        "A gift won leaves its place empty until the end of the round",
        "everyone has pointed or the table's timer runs out",
    ],
    "tonttu-end": [  # T-2.3, T-2.5, T-5
        "gift stack runs out",
        f"{tonttu_rules.ROUNDS_WITHOUT_GIFT_LIMIT} rounds in a row pass without anyone winning",
        "scored normally",
        "1st gift",
        "n(n+1)/2",
        f"+{tonttu_rules.SET_BONUS} points for each complete set of one Toys, one Clothing and one "
        "Decorations gift",
        "more gifts wins",
        "share the win",
    ],
}

RULE_ID = re.compile(r"\b[WT]-\d")


def every_text() -> dict[str, str]:
    """Everything ``/rules`` can show a player, by where it is shown."""
    texts = {"listing": topics_listing(), "unknown topic": UNKNOWN_TOPIC}
    for topic in TOPICS:
        texts[f"{topic.key} label"] = topic.label
        texts[topic.key] = topic.text
    return texts


def test_each_topic_names_the_rules_that_decide_a_game() -> None:
    assert len(set(toys_per_size.values())) == 1 and len(set(gold_gifts.values())) == 1
    assert set(FACTS) == set(RULE_TOPICS), "every topic has its facts, and only topics"
    missing = {
        key: [fact for fact in facts if fact.lower() not in rules_summary(key).lower()]
        for key, facts in FACTS.items()
    }
    assert missing == {key: [] for key in FACTS}


@pytest.mark.parametrize("text", every_text().values(), ids=every_text().keys())
def test_players_read_no_rule_ids(text: str) -> None:
    assert not RULE_ID.search(text), RULE_ID.search(text)
    assert "RULES.md" not in text


def reindeer_example_points() -> int:
    """The engine's score of the rulebook's reindeer example: Dasher, Dancer, Vixen ×2,
    Cupid, Blitzen ×2."""
    first_card = {
        name: COMPONENTS.reindeer_card_name.index(i)
        for i, name in enumerate(COMPONENTS.reindeer_names)
    }
    held = [first_card[n] for n in ("Dasher", "Dancer", "Vixen", "Cupid", "Blitzen")]
    held += [first_card["Vixen"] + 1, first_card["Blitzen"] + 1]
    return workshop_rules.reindeer_points(held)


def test_the_worked_examples_agree_with_the_engines() -> None:
    points = reindeer_example_points()
    assert f"7 cards with 5 different names score 12 + 2 × 2 = {points}" in rules_summary(
        "workshop-end"
    )

    # Tonttu: 4 gifts score 10; 2 Toys, 2 Clothing, 1 Decorations = 1 set, 18 points.
    by_category = [[g for g, c in enumerate(GIFT_CATEGORY_ID) if c == k] for k in range(3)]
    assert f"4 gifts score {tonttu_rules.gift_points([0, 1, 2, 3])}" in rules_summary("tonttu-end")
    won = by_category[0][:2] + by_category[1][:2] + by_category[2][:1]
    assert CATEGORIES == ("Toys", "Clothing", "Decorations")
    assert f"1 set: 15 + 3 = {tonttu_rules.score(won)} points" in rules_summary("tonttu-end")

    # Tonttu offers: a gift needing Wood, Wood, Paint; Anna Wood ×3 + Paint, Ben Wood ×2,
    # Paint ×2 + Gold: 4 against 4 (a tie); with one Paint less Ben offers 3.
    text = rules_summary("resolve")
    assert "a gift needs Wood, Wood, Paint" in text
    gift = GIFT_NEEDS.index(("Wood", "Wood", "Paint"))

    def cards(*names: str) -> list[int]:
        pool = {
            n: [c for c, t in enumerate(MATERIAL_TYPE) if MATERIAL_NAMES[t] == n]
            for n in MATERIAL_COPIES
        }
        return [pool[n].pop() for n in names]

    anna = cards("Wood", "Wood", "Wood", "Paint")
    ben = cards("Wood", "Wood", "Paint", "Paint", "Gold")
    offer = tonttu_rules._offer  # the engine's T-3.2 offer
    assert offer(anna, None, gift) == offer(ben, None, gift) == 4
    assert "(offer 4)" in text and "a tie, the gift stays" in text
    assert offer(ben[:3] + ben[4:], None, gift) == 3
    assert "Anna would win it and pay all 4 cards" in text


def assert_fits_discord(embed: discord.Embed) -> None:
    data = embed.to_dict()
    assert 0 < len(data.get("title", "")) <= EMBED_TITLE
    assert 0 < len(data.get("description", "")) <= EMBED_DESCRIPTION
    fields = data.get("fields", [])
    assert len(fields) <= EMBED_FIELDS
    for field in fields:
        assert len(field["name"]) <= FIELD_NAME and len(field["value"]) <= FIELD_VALUE
    assert len(embed) <= EMBED_TOTAL


@pytest.mark.parametrize("topic", [None, *RULE_TOPICS, "no-such-topic"])
def test_every_answer_fits_in_one_discord_embed(topic: str | None) -> None:
    embed = rules_embed(topic)
    assert_fits_discord(embed)
    if topic in RULE_TOPICS:
        assert embed.title == RULE_TOPICS[topic]
        assert embed.description == rules_summary(topic)
    elif topic is None:
        assert embed.description == topics_listing()
    else:
        assert embed.description == UNKNOWN_TOPIC


def test_the_command_offers_every_topic_as_a_choice_within_discords_limits() -> None:
    (parameter,) = Table.rules.parameters
    choices = {choice.value: choice.name for choice in parameter.choices}
    assert choices == RULE_TOPICS
    assert len(choices) <= CHOICES
    assert all(0 < len(v) <= CHOICE_VALUE and 0 < len(n) <= CHOICE_NAME for v, n in choices.items())
    # The listing names every topic the menu offers, grouped by game.
    listing = topics_listing()
    for topic in TOPICS:
        assert f"• {topic.name}" in listing
    assert listing.index("Santa's Workshop") < listing.index("Workshop Tonttu")


# --------------------------------------------------------------------------- German

DE = i18n.words("de")
GERMAN_FACTS: dict[str, list[str]] = {  # a few per game, in the glossary's words
    "workshop": ["2–5 Spieler, 6 Tage", "19. bis 24. Dezember", "alle ihre 3 Wichtel"],
    "shops": ["Kooperationsbonus", "1 Punkt pro Marker", "Spendenzentrale"],
    "tree": ["Christbaumkugeln", "Baumfelder", "1 Freude"],
    "inspection": ["Santa inspiziert nach Tag 3 und nach Tag 6", "8, 8, 4 und 2"],
    "tonttu": ["Werktisch", "Materialkarten", "Rotationskarte", "Taktikmodus", "Tempomodus"],
    "round": ["Auswahl", "Zeigen", "links ↔ rechts"],
    "resolve": ["verdeckt", "Gebot", "Ablagestapel"],
    "speed": ["Tempomodus", "60 Sekunden", "`/play`"],
    "tonttu-end": ["Set-Bonus", "n(n+1)/2", "10 Runden hintereinander"],
}


def test_every_topic_reads_in_german_for_a_german_reader() -> None:
    for topic in TOPICS:
        german = rules_summary(topic.key, DE)
        assert german != topic.text and DE.gettext(topic.name) != topic.name, topic.key
        # every number of the rules is still there, as often
        assert Counter(re.findall(r"\d+", german)) == Counter(re.findall(r"\d+", topic.text))
        assert not RULE_ID.search(german) and "RULES.md" not in german
        assert german.count("**") == topic.text.count("**") and german.count("**") % 2 == 0
        assert [fact for fact in GERMAN_FACTS.get(topic.key, []) if fact not in german] == [], (
            topic.key
        )
    # the glossary's words, never the English ones
    tonttu = " ".join(rules_summary(t.key, DE) for t in TOPICS if t.game == TONTTU)
    workshop = " ".join(rules_summary(t.key, DE) for t in TOPICS if t.game == WORKSHOP)
    for english in ("workbench", "gift", "rotation card", "material card", "Elf", "token"):
        assert english not in tonttu + workshop, english
    assert "Wichtel" in workshop and "Poststelle" in workshop and "Rentierstall" in workshop


def test_the_german_worked_examples_agree_with_the_engines() -> None:
    points = reindeer_example_points()
    text = rules_summary("workshop-end", DE)
    assert f"7 Karten mit 5 verschiedenen Namen bringen 12 + 2 × 2 = {points}" in text
    by_category = [[g for g, c in enumerate(GIFT_CATEGORY_ID) if c == k] for k in range(3)]
    won = by_category[0][:2] + by_category[1][:2] + by_category[2][:1]
    text = rules_summary("tonttu-end", DE)
    assert f"4 Geschenke also {tonttu_rules.gift_points([0, 1, 2, 3])}" in text
    assert f"1 Set: 15 + 3 = {tonttu_rules.score(won)} Punkte" in text
    text = rules_summary("resolve", DE)
    assert "Ein Geschenk braucht Holz, Holz, Farbe" in text
    assert "(Gebot 4)" in text and "Gleichstand, das Geschenk bleibt liegen" in text


@pytest.mark.parametrize("topic", [None, *RULE_TOPICS, "no-such-topic"])
def test_every_german_answer_fits_in_one_discord_embed(topic: str | None) -> None:
    embed = rules_embed(topic, DE)
    assert_fits_discord(embed)
    if topic in RULE_TOPICS:
        found = next(t for t in TOPICS if t.key == topic)
        game = DE.gettext(found.game)
        assert embed.title == f"{game}: {DE.gettext(found.name)}"
        assert embed.description == rules_summary(topic, DE) != rules_summary(topic)
    elif topic is None:
        assert embed.title == "Regeln" and embed.description == topics_listing(DE)
    else:
        assert embed.description == DE.gettext(UNKNOWN_TOPIC) != UNKNOWN_TOPIC


def test_every_topic_label_is_its_game_and_name_in_both_languages() -> None:
    for topic in TOPICS:
        assert topic.label == f"{topic.game}: {topic.name}"
        german = DE.gettext(topic.label)
        assert german == f"{DE.gettext(topic.game)}: {DE.gettext(topic.name)}"
        assert 0 < len(german) <= CHOICE_NAME
    listing = topics_listing(DE)
    assert listing.startswith("Wähle ein Thema in der Option `topic` von `/rules`:")
    assert listing.index("**Santas Werkstatt**") < listing.index("**Werkstatt-Tonttu**")
    assert "• Überblick und ein Tag" in listing and "• Tempomodus" in listing
