/*
 * inference_cache.c - the server's prefix cache as the inference workload
 * sees it (docs/metrics.md, "Prefix cache"): each successful request's
 * prompt tokens, and the prompt tokens the server says its cache held
 * (usage.prompt_tokens_details.cached_tokens, as vLLM and OpenAI report
 * it). A server that does not say is unknown, not 0: its requests count in
 * neither cache figure, and a window where none said has no hit ratio.
 * The cache's counters exist from the first request that said, so a run
 * against a server that never does reports none of them.
 */
#include "inference_int.h"

void inf_cache_register(struct inf *w)
{
	w->id_ptok = gl_metrics_counter(w->m, "inference.prompt_tokens");
	w->id_cache_queried = w->id_cached = -1;
}

void inf_usage_prompt(int64_t usage_prompt, int64_t usage_cached, int64_t *prompt, int64_t *cached)
{
	if (usage_prompt >= 0)
		*prompt = usage_prompt;
	if (usage_cached >= 0)
		*cached = usage_cached;
}

void inf_cache_record(struct inf *w, int64_t prompt_tokens, int64_t cached_tokens)
{
	if (prompt_tokens < 0)
		prompt_tokens = 0; /* neither sent as a count nor reported */
	gl_metrics_add(w->m, w->id_ptok, prompt_tokens);
	if (cached_tokens < 0)
		return;
	if (w->id_cached < 0) {
		w->id_cache_queried = gl_metrics_counter(w->m, "inference.cache_queried_tokens");
		w->id_cached = gl_metrics_counter(w->m, "inference.cached_tokens");
	}
	gl_metrics_add(w->m, w->id_cache_queried, prompt_tokens);
	gl_metrics_add(w->m, w->id_cached, cached_tokens);
}
