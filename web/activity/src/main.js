// The Discord Activity's page: Discord's Embedded App SDK signs the player in, the
// bot's server answers with the table of this channel as this player sees it, and a
// seated player plays by clicking the board. Every address is relative: inside Discord
// the page is served through Discord's proxy, which maps the Activity's root to the
// bot's /activity/.
import { DiscordSDK } from "@discord/embedded-app-sdk";
import { api, Refused } from "./api.js";
import { Board } from "./board.js";
import { readWords } from "./words.js";

const OVER = new Set(["finished", "abandoned"]);
const NO_GAME_RETRY_MS = 5000;
const UNREACHABLE_RETRY_MS = 3000;

class Activity {
  constructor(root) {
    this.root = root;
    this.words = readWords(document);
    this.prompt = document.getElementById("prompt");
    this.note = document.getElementById("note");
    this.undoButton = document.getElementById("undo");
    this.seatLine = document.getElementById("seat");
    this.board = new Board(
      document.getElementById("board"),
      document.getElementById("choices"),
      document.getElementById("menu"),
      (choice) => this.move(choice),
    );
    this.board.words = this.words;
    this.sdk = null;
    this.session = null;
    this.table = null;
    this.events = null;
    this.eventsGame = null;
    this.fetching = null;
    this.again = false;
    this.busy = false;
    this.retry = null;
    this.undoButton.addEventListener("click", () => this.undo());
  }

  say(text) {
    this.prompt.textContent = text;
  }

  tell(text, refused = false) {
    this.note.textContent = text || "";
    this.note.hidden = !text;
    this.note.classList.toggle("refused", refused);
  }

  state(name) {
    this.root.dataset.state = name;
  }

  async start() {
    const clientId = this.root.dataset.clientId;
    try {
      this.sdk = new DiscordSDK(clientId);
    } catch (error) {
      // no frame_id, instance_id or platform: the page was opened outside Discord
      this.state("outside");
      this.say(this.words.outside);
      return;
    }
    this.state("connecting");
    this.say(this.words.connecting);
    await this.sdk.ready();
    await this.signIn();
    if (this.session) await this.refresh();
  }

  async signIn() {
    this.state("signing-in");
    this.say(this.words.signingIn);
    let code;
    try {
      ({ code } = await this.sdk.commands.authorize({
        client_id: this.root.dataset.clientId,
        response_type: "code",
        state: "",
        prompt: "none",
        scope: ["identify"],
      }));
    } catch (error) {
      this.state("denied");
      this.say(this.words.denied);
      return;
    }
    let answer;
    try {
      answer = await api("api/token", { method: "POST", body: { code } });
    } catch (error) {
      this.state("denied");
      this.say(error instanceof Refused && error.sentence ? error.sentence : this.words.denied);
      return;
    }
    this.session = answer.session;
    this.user = answer.user;
    await this.speak(answer.lang);
    await this.sdk.commands.authenticate({ access_token: answer.access_token });
  }

  // The page's own words in the player's language (their Discord locale, as the
  // server read it): the same page in that language carries them.
  async speak(lang) {
    if (!lang || lang === document.documentElement.lang) return;
    try {
      const response = await fetch(`./?lang=${encodeURIComponent(lang)}`, {
        credentials: "omit",
      });
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      this.words = readWords(page);
      document.documentElement.lang = page.documentElement.lang || lang;
      this.undoButton.textContent = this.words.undo;
      this.board.words = this.words;
      for (const node of document.querySelectorAll("[data-word]")) {
        node.textContent = this.words[node.dataset.word] ?? node.textContent;
      }
    } catch (error) {
      // the words stay as they are; the table itself comes in the player's language
    }
  }

  authorized(options = {}) {
    return { ...options, session: this.session };
  }

  // Fetch the table again; calls while one is under way make one more fetch after it.
  refresh() {
    if (this.fetching) {
      this.again = true;
      return this.fetching;
    }
    this.fetching = (async () => {
      do {
        this.again = false;
        await this.fetchTable();
      } while (this.again);
      this.fetching = null;
    })();
    return this.fetching;
  }

  async fetchTable() {
    clearTimeout(this.retry);
    // the game of the channel this Activity instance runs in (the server asks Discord
    // which channel that is, and whether this user is in it) until one is shown, then
    // that game by its token: once it is over the channel has no open game, and the
    // page keeps its final board
    // (since the version shown, or while a reveal animates the one before it: the cards
    // turned up since are marked, even when a computer moved at once after a reveal)
    const since = this.board.revealing() ? this.revealFrom : this.table && this.table.version;
    const where = this.table
      ? `game=${encodeURIComponent(this.table.game)}&since=${since}`
      : `instance=${encodeURIComponent(this.sdk.instanceId || "")}`;
    let table;
    try {
      table = await this.withSession(() => api(`api/table?${where}`, this.authorized()));
    } catch (error) {
      if (error instanceof Refused && error.status === 404) {
        this.showNoGame(error.sentence);
        this.retry = setTimeout(() => this.refresh(), NO_GAME_RETRY_MS);
      } else {
        this.state(this.table ? "live" : "unreachable");
        this.tell(this.words.unreachable, true);
        this.retry = setTimeout(() => this.refresh(), UNREACHABLE_RETRY_MS);
      }
      return;
    }
    if (this.note.classList.contains("refused") && this.note.textContent === this.words.unreachable) {
      this.tell("");
    }
    this.show(table);
  }

  // A session lasts about an hour: when the server no longer takes it, sign in again
  // (silently: prompt none) and try once more.
  async withSession(call) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof Refused) || error.status !== 401) throw error;
      await this.signIn();
      if (!this.session) throw error;
      return call();
    }
  }

  showNoGame(sentence) {
    this.state("no-game");
    this.table = null;
    this.board.clear();
    this.undoButton.hidden = true;
    this.seatLine.hidden = true;
    this.say(sentence || this.words.noGame);
    this.follow(null);
  }

  show(table) {
    const shown = this.table && this.table.game === table.game ? this.table.version : null;
    this.table = table;
    this.state(table.seat ? "playing" : "watching");
    this.root.dataset.version = String(table.version);
    this.root.dataset.kind = table.kind;
    this.say(table.prompt || "");
    this.seatLine.textContent = this.words.watching;
    this.seatLine.hidden = Boolean(table.seat);
    this.undoButton.hidden = !table.undo;
    this.undoButton.disabled = this.busy;
    if (this.board.show(table, this.busy)) {
      this.revealFrom = shown === null ? table.version - 1 : shown;
    }
    this.follow(OVER.has(table.status) ? null : table.game);
  }

  // Listen to the game's public stream: any change, fetch this player's table again.
  follow(game) {
    if (this.eventsGame === game) return;
    if (this.events) this.events.close();
    this.events = null;
    this.eventsGame = game;
    if (!game) return;
    // the server's address carries a ticket naming this player: through Discord's proxy
    // every player comes from a few addresses, and a stream counts as its player's
    const url = this.table && this.table.game === game && this.table.events;
    const events = new EventSource(url || `api/events?game=${encodeURIComponent(game)}`);
    const changed = () => this.refresh();
    events.addEventListener("table", changed);
    events.addEventListener("message", changed);
    events.addEventListener("gone", changed);
    events.addEventListener("open", () => {
      this.root.classList.remove("reconnecting");
    });
    events.addEventListener("error", () => {
      this.root.classList.toggle("reconnecting", events.readyState !== EventSource.CLOSED);
    });
    this.events = events;
  }

  async send(path, body) {
    if (this.busy || !this.table) return;
    this.busy = true;
    this.board.setBusy(true);
    this.undoButton.disabled = true;
    try {
      const answer = await this.withSession(() =>
        api(path, this.authorized({ method: "POST", body })),
      );
      this.tell(answer.note || "");
      if (answer.table) this.show(answer.table);
    } catch (error) {
      if (error instanceof Refused) {
        this.tell(error.sentence || this.words.refused, true);
        if (error.table) this.show(error.table);
      } else {
        this.tell(this.words.unreachable, true);
      }
    } finally {
      this.busy = false;
      this.board.setBusy(false);
      this.undoButton.disabled = false;
    }
  }

  move(choice) {
    const table = this.table;
    const body = { game: table.game, version: table.version, index: choice.index };
    if (table.round !== undefined && table.round !== null) body.round = table.round;
    if (table.phase !== undefined && table.phase !== null) body.phase = table.phase;
    // a Tonttu choice carries the action itself, as its buttons do: judged by the round
    // and phase, it stays right while the others choose (and the version moves on)
    if (choice.action !== undefined) body.action = choice.action;
    return this.send("api/move", body);
  }

  undo() {
    const table = this.table;
    return this.send("api/undo", { game: table.game, version: table.version });
  }
}

const root = document.getElementById("activity");
if (root && root.dataset.clientId) {
  const activity = new Activity(root);
  activity.start().catch(() => {
    activity.state("unreachable");
    activity.say(activity.words.unreachable);
  });
}
