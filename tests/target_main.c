/*
 * target_main.c - a standalone entry point for `gauntlet target`, so the
 * token-streaming server can be built and exercised on its own (tests and
 * quick manual runs) without the rest of the gauntlet binary.
 */
#include "target.h"

int main(int argc, char **argv)
{
	static char name[] = "target";

	if (argc > 0)
		argv[0] = name;
	return gl_target_main(argc, argv);
}
