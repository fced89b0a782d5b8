/*
 * trace_prompt.c - the deterministic prompt synthesizer (trace.h,
 * gl_prompt_synth): a prompt of a given token count made of common words,
 * the same for the same seed and request index.
 */
#include "trace_int.h"

/* ---- prompt synthesis --------------------------------------------------- */

/* Common short words; each one is a single token in typical BPE vocabularies
 * when preceded by a space. */
static const char *const vocab[] = {
	"the",   "of",    "and",    "to",    "in",    "is",      "that",    "for",   "it",      "as",      "was",
	"with",  "be",    "by",     "on",    "not",   "he",      "this",    "are",   "or",      "his",     "from",
	"at",    "which", "but",    "have",  "an",    "had",     "they",    "you",   "were",    "their",   "one",
	"all",   "we",    "can",    "her",   "has",   "there",   "been",    "if",    "more",    "when",    "will",
	"would", "who",   "so",     "no",    "she",   "other",   "its",     "may",   "these",   "what",    "them",
	"than",  "some",  "him",    "time",  "into",  "only",    "do",      "out",   "new",     "about",   "two",
	"could", "then",  "first",  "any",   "my",    "now",     "such",    "like",  "our",     "over",    "man",
	"me",    "even",  "most",   "made",  "after", "also",    "did",     "many",  "before",  "must",    "through",
	"back",  "years", "where",  "much",  "your",  "way",     "well",    "down",  "should",  "because", "each",
	"just",  "those", "people", "how",   "too",   "little",  "state",   "good",  "very",    "make",    "world",
	"still", "own",   "see",    "men",   "work",  "long",    "get",     "here",  "between", "both",    "life",
	"being", "under", "never",  "day",   "same",  "another", "know",    "while", "last",    "might",   "us",
	"great", "old",   "year",   "off",   "come",  "since",   "against", "go",    "came",    "right",   "used",
	"take",  "three", "small",  "water", "light", "house",   "part",    "place", "point",   "hand",    "high",
	"city",  "line",  "number", "name",  "word",  "found",   "game",    "music", "river",   "table",   "plant",
	"order", "model", "data",   "text",  "power", "level",   "field",   "group", "story",   "paper",   "value",
	"money", "voice", "green",  "space", "north", "south",   "east",    "west",  "stone",   "cloud",   "glass",
	"metal", "train", "road",   "door",  "tree",  "fire",    "wind",    "rain",  "snow",    "sun",     "moon",
	"star",  "sea",   "ship",   "boat",  "car",   "bird",    "fish",    "dog",   "cat",     "horse",   "food",
	"bread", "milk",  "tea",    "book",  "page",  "song",    "art",     "film",  "show",    "board",   "chair",
	"room",  "wall",  "floor",  "yard",  "farm",  "town",    "market",  "price", "cost",    "rate",    "plan",
	"test",  "run",   "step",   "path",  "map",   "key",     "lock",    "code",  "file",    "disk",    "node",
	"link",  "port",  "rack",   "fan",   "heat",  "cold",    "warm",    "cool",  "dark",    "bright",  "quiet",
	"loud",
};

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static int synth_words(uint64_t state, size_t n, bool *first, struct gl_buf *out)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		const char *w;
		state = mix64(state);
		w = vocab[state % GL_ARRAY_LEN(vocab)];
		if (!*first && (rc = gl_buf_append(out, " ", 1)) < 0)
			return rc;
		*first = false;
		if ((rc = gl_buf_append(out, w, strlen(w))) < 0)
			return rc;
	}
	return 0;
}

int gl_prompt_synth(uint64_t seed, uint64_t request_index, unsigned n_tokens, const int64_t *hash_ids, size_t n_hash,
		    size_t block_tokens, struct gl_buf *out)
{
	size_t old_len = out->len, done = 0;
	bool first = true;
	int rc = 0;

	if (n_hash && (!hash_ids || block_tokens == 0))
		return -GL_EINVAL;
	for (size_t b = 0; b < n_hash && done < n_tokens; b++) {
		size_t n = n_tokens - done < block_tokens ? n_tokens - done : block_tokens;
		/* Block text from the hash id alone: same id, same words. */
		uint64_t st = mix64((uint64_t)hash_ids[b] ^ 0x6A09E667F3BCC908ULL);
		if ((rc = synth_words(st, n, &first, out)) < 0)
			goto fail;
		done += n;
	}
	if (done < n_tokens) {
		uint64_t st = mix64(seed ^ mix64(request_index ^ 0xBB67AE8584CAA73BULL));
		if ((rc = synth_words(st, n_tokens - done, &first, out)) < 0)
			goto fail;
	}
	if (!out->data && (rc = gl_buf_append(out, "", 0)) < 0)
		goto fail;
	out->data[out->len] = '\0'; /* also when the caller reset len by hand */
	return 0;
fail:
	out->len = old_len;
	if (out->data)
		out->data[old_len] = '\0';
	return rc;
}
