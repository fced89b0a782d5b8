/*
 * training_steps.c - the record type of the training workload's steps
 * (training_steps.h). Its columns are those of every store written before
 * the type existed, so old stores read and resume as they are.
 */
#include "training_steps.h"

/* A step every few milliseconds for a whole window still fits; the bound
 * is there so that no launcher can fill the disk. */
#define STEPS_PER_WINDOW 100000

static const struct gl_record_field fields[] = {
	{ "step", GL_RECORD_INT },
	{ "launch", GL_RECORD_INT },
	{ "step_time_s", GL_RECORD_REAL },
	{ "comm_time_s", GL_RECORD_REAL },
	{ "data_time_s", GL_RECORD_REAL },
	{ "busbw_gbps", GL_RECORD_REAL },
	{ "correctness_errors", GL_RECORD_INT },
};

const struct gl_record_type gl_train_steps = {
	.table = "train_steps",
	.fields = fields,
	.n_fields = (int)(sizeof(fields) / sizeof(fields[0])),
	.per_window = STEPS_PER_WINDOW,
};

int gl_train_step_put(struct gl_store *st, int64_t window, const struct gl_train_step *r)
{
	const union gl_record_value v[] = {
		{ .i = r->step },
		{ .i = r->launch },
		{ .r = r->step_time_s },
		{ .r = r->comm_time_s },
		{ .r = r->data_time_s },
		{ .r = r->busbw_gbps },
		{ .i = r->correctness_errors },
	};

	return gl_store_record_put(st, &gl_train_steps, window, v);
}
