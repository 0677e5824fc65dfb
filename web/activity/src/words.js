// The page's own words, in the page's language: the server writes them into the page
// (a JSON block made by the template's gettext), so no sentence is written here.

const FALLBACK = {};

export function readWords(doc) {
  const block = doc.getElementById("activity-words");
  if (!block) return FALLBACK;
  try {
    return JSON.parse(block.textContent);
  } catch (error) {
    return FALLBACK;
  }
}
