// The bot's Activity API, relative to the page (Discord's proxy maps the Activity's
// root to the bot's /activity/). A refusal carries the server's sentence and, for a
// stale or refused move, the fresh table.

export class Refused extends Error {
  constructor(status, answer) {
    super(answer && answer.error ? answer.error : `HTTP ${status}`);
    this.status = status;
    this.sentence = answer && typeof answer.error === "string" ? answer.error : "";
    this.table = answer && answer.table ? answer.table : null;
  }
}

export async function api(path, { method = "GET", body, session } = {}) {
  const headers = { Accept: "application/json" };
  if (session) headers.Authorization = `Bearer ${session}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  let answer = null;
  try {
    answer = await response.json();
  } catch (error) {
    answer = null;
  }
  if (!response.ok) throw new Refused(response.status, answer);
  return answer;
}
