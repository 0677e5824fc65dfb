// The board as the server drew it for this player, made playable: every element whose
// data-target names the target of a legal choice is clickable (one choice: a click makes
// it; several, such as a toy taking 1, 2 or 3 tokens: a small menu of their labels);
// choices with no drawn target (stop, timer, ...) are buttons in a row under the board.

const ACTIVATE = new Set(["Enter", " "]);
// How long the cards a reveal turned up animate (board.css: the glow's 0.2 s + 2.4 s)
const REVEAL_MS = 2600;

export class Board {
  constructor(area, row, menu, choose) {
    this.area = area;
    this.row = row;
    this.menu = menu;
    this.choose = choose;
    this.words = {};
    this.html = null;
    this.byTarget = new Map();
    this.busy = false;
    this.revealedAt = -Infinity;
    area.addEventListener("click", (event) => this.clicked(event));
    area.addEventListener("keydown", (event) => {
      if (ACTIVATE.has(event.key) && event.target.closest(".clickable")) {
        event.preventDefault();
        this.clicked(event);
      }
    });
    menu.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) {
        if (event.target === menu) menu.close(); // a click on the backdrop
        return;
      }
      menu.close();
      if (button.dataset.index !== undefined) this.pick(Number(button.dataset.index));
    });
  }

  clear() {
    this.html = null;
    this.area.replaceChildren();
    this.row.replaceChildren();
    this.row.hidden = true;
    this.byTarget = new Map();
    if (this.menu.open) this.menu.close();
  }

  // Whether the cards of a reveal are still animating.
  revealing() {
    return performance.now() - this.revealedAt < REVEAL_MS;
  }

  // Shows the table; true if the cards of a new reveal began to animate.
  show(table, busy) {
    let began = false;
    if (table.html !== this.html) {
      // the same html is not drawn again, so a reveal's animation plays once; a board
      // drawn again while it plays (a computer moved at once) carries it on
      const playing = this.revealing();
      this.area.innerHTML = table.html;
      this.html = table.html;
      const turned = this.area.querySelectorAll(".revealed");
      if (turned.length && playing) {
        const elapsed = performance.now() - this.revealedAt;
        for (const card of turned) card.style.animationDelay = `${-elapsed}ms, ${200 - elapsed}ms`;
      } else if (turned.length) {
        this.revealedAt = performance.now();
        began = true;
      }
    }
    this.choices = new Map(table.choices.map((choice) => [choice.index, choice]));
    this.byTarget = new Map();
    for (const choice of table.choices) {
      if (!choice.target) continue;
      const list = this.byTarget.get(choice.target) || [];
      list.push(choice);
      this.byTarget.set(choice.target, list);
    }
    const drawn = new Set();
    for (const element of this.area.querySelectorAll("[data-target]")) {
      const target = element.dataset.target;
      const list = this.byTarget.get(target);
      this.mark(element, list);
      if (list) drawn.add(target);
    }
    const loose = table.choices.filter((choice) => !choice.target || !drawn.has(choice.target));
    this.row.replaceChildren(
      ...loose.map((choice) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "choice";
        button.textContent = choice.label;
        button.dataset.index = String(choice.index);
        button.addEventListener("click", () => this.pick(choice.index));
        return button;
      }),
    );
    this.row.hidden = loose.length === 0;
    if (this.menu.open) this.menu.close();
    this.setBusy(busy);
    return began;
  }

  mark(element, list) {
    if (!list) {
      if (element.classList.contains("clickable")) {
        element.classList.remove("clickable", "several");
        for (const name of ["tabindex", "role", "aria-label", "aria-haspopup", "title"]) {
          element.removeAttribute(name);
        }
      }
      return;
    }
    const labels = list.map((choice) => choice.label);
    element.classList.add("clickable");
    element.classList.toggle("several", list.length > 1);
    element.tabIndex = 0;
    element.setAttribute("role", "button");
    element.setAttribute("aria-label", labels.join(" / "));
    element.title = labels.join("\n");
    if (list.length > 1) element.setAttribute("aria-haspopup", "dialog");
    else element.removeAttribute("aria-haspopup");
  }

  setBusy(busy) {
    this.busy = busy;
    this.area.classList.toggle("busy", busy);
    for (const button of this.row.querySelectorAll("button")) button.disabled = busy;
  }

  clicked(event) {
    const element = event.target.closest(".clickable");
    if (!element || !this.area.contains(element) || this.busy) return;
    event.preventDefault();
    const list = this.byTarget.get(element.dataset.target) || [];
    if (list.length === 1) this.pick(list[0].index);
    else if (list.length > 1) this.offer(list);
  }

  offer(list) {
    const heading = document.createElement("p");
    heading.className = "menu-heading";
    heading.textContent = this.words.choose || "";
    const options = list.map((choice) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.textContent = choice.label;
      button.dataset.index = String(choice.index);
      return button;
    });
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "cancel";
    cancel.textContent = this.words.cancel || "×";
    this.menu.replaceChildren(heading, ...options, cancel);
    this.menu.showModal();
    options[0].focus();
  }

  pick(index) {
    if (this.busy || !this.choices.has(index)) return;
    this.choose(this.choices.get(index));
  }
}
