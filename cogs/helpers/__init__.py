"""What the extensions of ``cogs/`` share: Discord's side of things only.

Components and embeds, the interaction door (who may act, how fast, error sentences),
REST pacing, permissions, languages, a game thread's posts, and the typed interface
(:class:`cogs.helpers.host.Host`) through which an extension reaches the table core.
No extension module imports another: what two of them need lives here.
"""
