"""Short rules summaries for ``/rules`` (from the project's RULES.md; ids in brackets)."""

from __future__ import annotations

RULE_TOPICS: dict[str, str] = {
    "workshop": "Santa's Workshop: overview",
    "stations": "Santa's Workshop: stations",
    "tokens": "Santa's Workshop: tokens and toys",
    "inspection": "Santa's Workshop: Inspection and scoring",
    "tonttu": "Workshop Tonttu: overview",
    "resolve": "Workshop Tonttu: who gets what",
    "speed": "Workshop Tonttu: speed mode",
    "tonttu-scoring": "Workshop Tonttu: scoring",
}

SUMMARIES: dict[str, str] = {
    "workshop": (
        "**Santa's Workshop** (2–5 players, 6 days, Dec 19–24) [W-1, W-2]\n"
        "Each day, starting with the first player and going round, everyone places one Elf "
        "at a station and resolves it, until each has placed 3. Then Elves return, the "
        "stables restock, Santa moves on, and the first player passes clockwise. Build toys "
        "for points, collect reindeer, decorate your tree. Inspections after Day 3 and Day 6."
    ),
    "stations": (
        "**Stations** [W-3]\n"
        "• Wood / Metal / Fabric Shops, Assembly Hall: 4 spaces giving 2/3/4/5 tokens. "
        "Cooperation: everyone scores 1 per Elf of theirs already in that shop.\n"
        "• Donation Center: take donated tokens your toys need.\n"
        "• Mail Room: take up to 3 (or 2) toy cards, one at a time; at most 5 unfinished.\n"
        "• Reindeer Stables: 1 reindeer + 1/2/3 materials of your choice.\n"
        "• Christmas Tree: an ornament by colour (its reward is hidden until taken), then "
        "cover a space of your tree for its reward."
    ),
    "tokens": (
        "**Tokens and toys** [W-4]\n"
        "Every token you receive goes at once onto an unfinished toy that needs it, or is "
        "donated for +1 point. Tokens on a toy never move. A toy whose last need is filled "
        "completes: you score its points (4/7/11) and it waits beside your mat for the next "
        "Inspection. Supply is 24 of each token."
    ),
    "inspection": (
        "**Inspection and end** [W-5, W-6]\n"
        "Cheer = completed toys beside your mat + ornaments on your tree. Highest Cheer "
        "scores 8, next 4, then 2, then 1 (ties share). After the second Inspection: +1 per "
        "token on unfinished toys, and reindeer: distinct names 1→1, 2→3, 3→6, 4→9, 5→12, "
        "6→16, 7→20, 8→25, 9→31, plus 2 per duplicate. Most points wins; ties go to reindeer "
        "points, then the win is shared."
    ),
    "tonttu": (
        "**Workshop Tonttu** (3–6 players) [T-1, T-2]\n"
        "Each round everyone secretly picks a material card from their hand (it goes face up "
        "on their workbench), then secretly points at one card in the middle: a gift or a "
        "face-down material. Choices can be changed until the last player has chosen; then "
        "all are revealed at once. Hands pass to the neighbour the rotation card shows."
    ),
    "resolve": (
        "**Who gets what** [T-3]\n"
        "A face-down material pointed at by exactly one player goes to them; two or more: "
        "nobody gets it. A gift: only those who can pay its materials from their workbench "
        "contend. One contender pays exactly and takes it. Several: each offers all their "
        "workbench cards of the gift's types; the single highest offer wins and pays them; "
        "a tie means nobody gets it and nobody pays."
    ),
    "speed": (
        "**Speed mode** [T-4]\n"
        "Picks are as usual. Pointing is a race: the first valid point at a card wins it at "
        "once. Each player points once; a point at a gift you cannot pay is wasted. The race "
        "ends when everyone has pointed or the timer runs out."
    ),
    "tonttu-scoring": (
        "**Scoring** [T-5]\n"
        "Your k-th gift is worth k points (n gifts score n(n+1)/2), plus 3 for each full set "
        "of one Toys, one Clothing and one Decorations gift. Most points wins; ties go to "
        "more gifts, then the win is shared."
    ),
}


def rules_summary(topic: str | None) -> str:
    if topic is None:
        listing = "\n".join(f"• `{key}`: {label}" for key, label in RULE_TOPICS.items())
        return f"Pick a topic with `/rules topic:`\n{listing}"
    return SUMMARIES.get(topic, "There is no such topic; try `/rules` for the list.")
