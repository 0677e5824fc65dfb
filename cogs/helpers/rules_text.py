"""The rules as players read them in ``/rules``: one topic per part of a game.

Every rule of the project's rulebook (``docs/rules.md``) that can decide a game is in one of
these topics, in plain words. The rule ids (W-…, T-…) are for developers: they appear in
the comments here, never in what a player reads (``tests/cogs/test_rules_text.py``
checks that, the facts each topic must name, and Discord's limits).

Shown as one ephemeral embed per topic: the topic's label is the title and its text the
description (at most 4096 characters, 6000 for the whole embed). ``/rules`` without a
topic lists the topics; Discord shows them as the command's choices, so a topic is
picked from a menu, never typed.

German too: every topic's name, label and text is a catalogue template,
shown in the reader's own language (``/rules`` is private text); the German follows
``docs/glossary.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from engine.words import ENGLISH, N_, Words

WORKSHOP = N_("Santa's Workshop")
TONTTU = N_("Workshop Tonttu")
GAME_COLOUR = {WORKSHOP: discord.Colour.dark_red(), TONTTU: discord.Colour.dark_green()}


@dataclass(frozen=True)
class Topic:
    key: str  # the command choice's value
    game: str
    name: str  # short, shown after the game's name
    label: str  # the command choice's name: "<game>: <name>" (a template of its own)
    text: str


TOPICS: tuple[Topic, ...] = (
    Topic(
        "workshop",
        WORKSHOP,
        N_("overview and a day"),
        N_("Santa's Workshop: overview and a day"),
        # W-1, W-2, W-1.4
        N_(
            "**2–5 players, 6 days** (December 19 to 24). Most points wins.\n"
            "**Setup**: 6 toy cards face up in the Mail Room, 3 reindeer face up in the "
            "Stables, 25 ornaments face down at the Christmas Tree. Every player starts with "
            "2 toy cards from the top of the toy deck. Seat order is the order of joining; "
            "the first player is drawn at random.\n"
            "**A day**: starting with the first player and going round in seat order, each "
            "player places one Elf on a station and does that station's action at once. This "
            "goes round until everyone has placed all 3 Elves. There is always a free space "
            "for an Elf, and you cannot pass.\n"
            "**End of a day**, in this order: the Elves come back; the reindeer left in the "
            "stalls go under the reindeer deck and 3 new ones are revealed (a stall stays "
            "empty if the deck runs out); Santa moves on a day; after Day 3 and Day 6 Santa "
            "inspects; the first player marker passes to the next player in seat order.\n"
            "**Where points come from**: completed toys, the cooperation bonus, donations, "
            "ornaments and tree spaces, the two Inspections, and at the end tokens on "
            "unfinished toys and reindeer.\n"
            "The other Santa's Workshop topics explain each station, tokens and toys, the "
            "Inspection and the final scoring."
        ),
    ),
    Topic(
        "shops",
        WORKSHOP,
        N_("shops, Assembly Hall, Donation Center"),
        N_("Santa's Workshop: shops, Assembly Hall, Donation Center"),
        # W-3 table, W-3.1, W-3.2
        N_(
            "**Wood, Metal and Fabric Shops, Assembly Hall**: 4 spaces each, taken in "
            "order (1st, 2nd, 3rd, 4th). They give 2, 3, 4 or 5 tokens of the shop's kind "
            "(the Assembly Hall gives Assembly), by the space your Elf takes.\n"
            "**Cooperation bonus**: when an Elf is placed in a shop or the Assembly Hall, "
            "first every player scores 1 point for each Elf of theirs already in that same "
            "shop (your own earlier Elves count too), then the new Elf takes its tokens. "
            "Example: the 3rd Elf in the Wood Shop gives 1 point each to the owners of the "
            "1st and 2nd Elves.\n"
            "**Donation Center**: open to any number of Elves, but only when at least one "
            "donated token there fits something your unfinished toys still need. You take "
            "tokens one at a time, each straight onto a toy that needs it, never more than "
            "your toys need; you may stop after the first. Taking scores nothing (donating "
            "does: 1 point per token, see *tokens and toys*)."
        ),
    ),
    Topic(
        "mail",
        WORKSHOP,
        N_("Mail Room and toy cards"),
        N_("Santa's Workshop: Mail Room and toy cards"),
        # W-3.3, W-3.6, W-4.2
        N_(
            "**Mail Room**: two stations, one Elf each: take up to 3 toy cards, or take up "
            "to 2. Either may be taken first.\n"
            "You take the cards one at a time. Each one comes from one of the 6 face-up "
            "toys (that slot is refilled at once from the deck) or, unseen, from the top of "
            "the toy deck. You must take at least 1 card and may stop after any card.\n"
            "**5 unfinished toys at most**: with 5 unfinished toys you cannot use the Mail "
            "Room, and you stop taking cards when you reach 5. Completed toys do not count. "
            "You can never discard a toy to make room.\n"
            "**Empty toy deck**: when a card must be drawn and the deck is empty, the toys "
            "in Santa's sleigh (the toys already inspected) are shuffled into a new deck. "
            "If the sleigh is empty too, nothing is drawn and the slot stays "
            "empty; with no face-up toy and nothing to draw, the Mail Room cannot be used."
        ),
    ),
    Topic(
        "stables",
        WORKSHOP,
        N_("Reindeer Stables"),
        N_("Santa's Workshop: Reindeer Stables"),
        # W-3.4, W-2.3, W-7.2, W-8
        N_(
            "**Reindeer Stables**: 3 spaces, taken in order (1st, 2nd, 3rd), and only while "
            "a reindeer is face up. Take one face-up reindeer (its stall stays empty until "
            "the end of the day), then get 1, 2 or 3 materials (by your space), choosing "
            "Wood, Metal or Fabric for each one separately. They are placed or donated like "
            "any token.\n"
            "**Reindeer cards**: 18, two each of Dasher, Dancer, Prancer, Vixen, Comet, "
            "Cupid, Donner, Blitzen and Velvet. The names you hold are secret; how many "
            "cards you hold is public. They score at the end: different names are worth "
            "much more than copies (see *final scoring and the winner*).\n"
            "**End of the day**: the reindeer left in the stalls go under the reindeer deck "
            "(in stall order) and 3 new ones are revealed."
        ),
    ),
    Topic(
        "tree",
        WORKSHOP,
        N_("Christmas Tree and ornaments"),
        N_("Santa's Workshop: Christmas Tree and ornaments"),
        # W-3.5, W-8
        N_(
            "**Christmas Tree**: two stations, one Elf each; you may use both in one day. "
            "You cannot go there once your tree holds 6 ornaments, or when no ornament is "
            "left.\n"
            "Choose a face-down ornament by its colour (red, gold, silver, blue, green): "
            "which reward it gives is hidden until you take it. Gain that reward, then put "
            "the ornament on an empty space of your tree (your choice) and gain that "
            "space's reward.\n"
            "**Ornaments** (25): each colour has one of each reward: 3 points · 2 "
            "materials of your choice · 2 Assembly · 1 toy card (taken as in the Mail Room; "
            "nothing if you hold 5 unfinished toys or no card can be taken) · 1 material of "
            "your choice and 1 point. Materials of your choice are Wood, Metal or Fabric.\n"
            "**Tree spaces** (the same 6 on every tree): the star (3 points), 2 points, 1 "
            "Wood, 1 Metal, 1 Fabric, 1 Assembly.\n"
            "Every ornament on your tree counts as 1 Cheer at both Inspections."
        ),
    ),
    Topic(
        "tokens",
        WORKSHOP,
        N_("tokens and toys"),
        N_("Santa's Workshop: tokens and toys"),
        # W-4, W-1.4, W-8 toys
        N_(
            "**Every token you receive** (from a shop, the Stables, an ornament or a tree "
            "space) must at once go onto one of your unfinished toys that still needs that "
            "kind, or be donated: it goes to the Donation Center and you score 1 point. You "
            "may donate a token even if it fits. You cannot keep tokens for later, and "
            "tokens on a toy never move. Tokens that none of your toys can use are donated "
            "for you.\n"
            "**Toys** (45, 15 of each size): small ones need 3 tokens and score 4 points, "
            "medium ones 5 tokens and 7 points, large ones 7 tokens and 11 points. Every toy "
            "needs at least 1 Assembly. W = Wood, M = Metal, F = Fabric, A = Assembly.\n"
            "**Completing a toy**: when its last token is placed you score its points at "
            "once, its tokens go back to the supply, and the toy waits beside your mat "
            "until the next Inspection (it counts for Cheer there), then goes into Santa's "
            "sleigh.\n"
            "**5 unfinished toys at most**: completed toys do not count, and a toy can "
            "never be discarded.\n"
            "**Supply**: 24 tokens each of Wood, Metal, Fabric and Assembly. A reward "
            "larger than what is left gives what is left (the log says so); when Wood, "
            "Metal and Fabric are all gone, a material of your choice is lost."
        ),
    ),
    Topic(
        "inspection",
        WORKSHOP,
        N_("Santa's Inspection"),
        N_("Santa's Workshop: Santa's Inspection"),
        # W-5
        N_(
            "**Santa inspects after Day 3 and after Day 6.**\n"
            "**Cheer** = completed toys beside your mat + ornaments on your tree. A toy's "
            "points do not matter: each completed toy counts 1.\n"
            "**Points**: the highest Cheer scores 8, the next lower Cheer 4, then 2, then 1; "
            "any lower Cheer scores nothing. Tied players each receive the full points of "
            "their rank, and the next lower Cheer takes the next rank: with Cheer 5, 5, 3 "
            "and 2 the players score 8, 8, 4 and 2. A Cheer of 0 is ranked like any other.\n"
            "**After the Inspection** the completed toys go into Santa's sleigh, so they do "
            "not count again at the second Inspection. Ornaments stay on your tree and "
            "count at both."
        ),
    ),
    Topic(
        "workshop-end",
        WORKSHOP,
        N_("final scoring and the winner"),
        N_("Santa's Workshop: final scoring and the winner"),
        # W-6
        N_(
            "**The game ends after the second Inspection** (after Day 6). Then:\n"
            "• 1 point for each token on your unfinished toys (their printed points do not "
            "count).\n"
            "• Reindeer, by the number of different names you hold: 1 → 1 point, 2 → 3, "
            "3 → 6, 4 → 9, 5 → 12, 6 → 16, 7 → 20, 8 → 25, 9 → 31; plus 2 points for each "
            "card beyond the first of a name. Example: 7 cards with 5 different names "
            "score 12 + 2 × 2 = 16.\n"
            "**Winner**: most points. Tied: the one of them with the most reindeer points "
            "wins; still tied: they share the win."
        ),
    ),
    Topic(
        "tonttu",
        TONTTU,
        N_("overview and setup"),
        N_("Workshop Tonttu: overview and setup"),
        # T-1, T-6
        N_(
            "**3–6 players.** Win gifts by paying material cards from your workbench; more "
            "gifts score more and more points.\n"
            "**Material cards** (60): Wood 16, Wool 14, Metal 12, Paint 10, Gold 8.\n"
            "**Gifts** (36): 12 each of Toys, Clothing and Decorations. Each gift needs 2 "
            'to 4 material cards (shown as e.g. "needs Wood, Wood, Paint"). Most Toys need '
            "Wood, most Clothing need Wool, most Decorations need Metal; only 2 gifts of "
            "each category need Gold. The gift stack holds 5 gifts per player; the other "
            "gifts leave the game.\n"
            "**Setup**: everyone gets a hand of 5 material cards and a workbench with 1 "
            "face-up and 1 face-down material card. The middle of the table gets one gift "
            "more than there are players, face up, and one face-down material card per "
            "player. The rotation card starts on left.\n"
            "**Secret**: hands, everyone's pick and point until they are revealed, and the "
            "face-down cards (only its owner sees a workbench's face-down card). A "
            "workbench never holds more than one face-down card. Public: every face-up "
            "workbench, the gifts won, hand sizes and who has already chosen.\n"
            "**Two modes**: tactical (the default: points are secret and revealed "
            "together) and speed (pointing is a race), chosen with `/newgame`."
        ),
    ),
    Topic(
        "round",
        TONTTU,
        N_("a round: pick, point, pass, new deal"),
        N_("Workshop Tonttu: a round: pick, point, pass, new deal"),
        # T-2.1 .. T-2.5
        N_(
            "**1. Pick**: everyone secretly chooses one card from their hand. You may change "
            "your choice until the last player has chosen; then all picks are revealed at "
            "once and go face up onto their owners' workbenches. A player with an empty "
            "hand skips the pick.\n"
            "**2. Point**: everyone secretly points at exactly one card in the middle: a "
            "gift or a face-down material. You cannot pass. You may change your point until "
            "the last player has pointed; then all points are revealed and resolved "
            "together (see *who gets what*).\n"
            "**3. End of the round**: empty gift places are refilled from the gift stack and "
            "empty material places from the material deck (face down). If the gift stack "
            "is now empty, the game ends.\n"
            "**Passing**: otherwise everyone passes their whole remaining hand to the "
            "neighbour the rotation card shows: left = the next player in seat order, "
            "right = the previous one (the list wraps round).\n"
            "**New deal after 4 rounds**: a hand of 5 loses one card a round, so after the "
            "4th round of a deal each hand holds 1 card. Instead of passing, those cards "
            "are discarded, the rotation card is flipped (left ↔ right) and everyone is "
            "dealt a new hand of 5.\n"
            "**Material deck**: when it runs out, the discard pile is shuffled into a new "
            "deck; if both are empty, what there is is dealt one card at a time in seat "
            "order (some hands are then shorter, and a material place may stay empty)."
        ),
    ),
    Topic(
        "resolve",
        TONTTU,
        N_("who gets what"),
        N_("Workshop Tonttu: who gets what"),
        # T-3
        N_(
            "**A face-down material** pointed at by exactly one player goes onto that "
            "player's workbench. If that workbench has no face-down card, the material goes "
            "face down by default; you may instead choose face up when you point. If the "
            "workbench already has a face-down card, it goes face up. Pointed at by two or "
            "more players: nothing happens, the card stays.\n"
            "**A gift**: only the pointers who can pay its cards from their workbench (the "
            "face-down card included) compete for it.\n"
            "• One of them: they pay exactly the cards the gift needs (face-up cards first, "
            "the face-down card only if needed) and take the gift.\n"
            "• Two or more: each one's offer is the number of their workbench cards whose "
            "type appears on the gift, all of them, not only the ones needed. The single "
            "highest offer wins the gift and pays all those cards. A tie for the highest "
            "offer: nobody gets the gift and nobody pays.\n"
            "• Pointers who cannot pay lose nothing.\n"
            "Example: a gift needs Wood, Wood, Paint. Anna has Wood ×3 and Paint (offer 4), "
            "Ben has Wood ×2, Paint ×2 and Gold (offer 4): a tie, the gift stays. Had Ben "
            "one Paint less, Anna would win it and pay all 4 cards.\n"
            "Paid cards go to the discard pile; a paid face-down card is shown."
        ),
    ),
    Topic(
        "speed",
        TONTTU,
        N_("speed mode"),
        N_("Workshop Tonttu: speed mode"),
        # T-4
        N_(
            "**Speed mode** (`/newgame` with mode speed): the pick is as in a tactical "
            "round. Pointing is a race, with buttons on the table's message: each player "
            "points once, and the first valid point at a card wins it at once.\n"
            "• A gift goes to the first pointer who can pay it, who pays exactly the cards "
            "it needs (face-up cards first). A point at a gift you cannot pay is wasted and "
            "the gift stays open.\n"
            "• A face-down material goes to the first pointer: face down if their "
            "workbench has no face-down card yet, else face up. A race button keeps it face "
            "down; to take it face up, point with `/play` and pick the face-up choice.\n"
            "A gift won leaves its place empty until the end of the round.\n"
            "The race ends when everyone has pointed or the table's timer runs out (60 "
            "seconds unless the host chose otherwise). Who was first is the order in which "
            "the bot recorded the points. The end of the round, the end of the game and "
            "the scoring are as in the tactical game."
        ),
    ),
    Topic(
        "tonttu-end",
        TONTTU,
        N_("end of the game and scoring"),
        N_("Workshop Tonttu: end of the game and scoring"),
        # T-2.3, T-2.5, T-5
        N_(
            "**The game ends** at the end of a round in either case:\n"
            "• the gift stack runs out: the refill at the end of a round empties it (the "
            "gifts still in the middle are not played for), or\n"
            "• 10 rounds in a row pass without anyone winning a gift.\n"
            "Either way it is scored normally.\n"
            "**Gifts**: your 1st gift (in the order you won them) scores 1 point, your 2nd "
            "2 points, your 3rd 3, and so on: n gifts score n(n+1)/2, so 4 gifts score 10.\n"
            "**Set bonus**: +3 points for each complete set of one Toys, one Clothing and "
            "one Decorations gift. Example: 2 Toys, 2 Clothing and 1 Decorations gift make "
            "1 set: 15 + 3 = 18 points.\n"
            "**Winner**: most points. Tied: the one of them with more gifts wins; still "
            "tied: they share the win. Cards left in hands or on workbenches score nothing."
        ),
    ),
)

TOPIC_BY_KEY: dict[str, Topic] = {topic.key: topic for topic in TOPICS}
RULE_TOPICS: dict[str, str] = {topic.key: topic.label for topic in TOPICS}
"""Choice value → the label Discord shows in the command's menu (at most 25)."""
SUMMARIES: dict[str, str] = {topic.key: topic.text for topic in TOPICS}

UNKNOWN_TOPIC = N_("There is no such topic; use `/rules` and pick one from the menu.")


def topics_listing(words: Words = ENGLISH) -> str:
    """What ``/rules`` without a topic says: how to pick one, and every topic by game."""
    gettext = words.gettext
    lines = [gettext("Choose a topic in the `topic` option of `/rules`:")]
    for game in (WORKSHOP, TONTTU):
        lines.append(f"**{gettext(game)}**")
        lines.extend(f"• {gettext(topic.name)}" for topic in TOPICS if topic.game == game)
    return "\n".join(lines)


def rules_summary(topic: str | None, words: Words = ENGLISH) -> str:
    """The text of a topic (the listing for ``None``), without its title, in ``words``'
    language (the reader's own)."""
    if topic is None:
        return topics_listing(words)
    found = TOPIC_BY_KEY.get(topic)
    return words.gettext(found.text if found is not None else UNKNOWN_TOPIC)


def rules_embed(topic: str | None, words: Words = ENGLISH) -> discord.Embed:
    """The ephemeral answer to ``/rules``: one topic, or the list of topics, in
    ``words``' language (the reader's own: ``cogs.helpers.language.private``)."""
    gettext = words.gettext
    if topic is None:
        return discord.Embed(title=gettext("Rules"), description=topics_listing(words))
    found = TOPIC_BY_KEY.get(topic)
    if found is None:
        return discord.Embed(title=gettext("Rules"), description=gettext(UNKNOWN_TOPIC))
    return discord.Embed(
        title=gettext(found.label), description=gettext(found.text), colour=GAME_COLOUR[found.game]
    )
