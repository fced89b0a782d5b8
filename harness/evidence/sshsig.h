/*
 * sshsig.h - SSH signatures over a buffer, made and checked by ssh-keygen
 * exactly as git does for gpg.format=ssh: namespace "git", the armored
 * "-----BEGIN SSH SIGNATURE-----" form, the signer looked up in an
 * allowed signers file (ssh-keygen(1), ALLOWED SIGNERS).
 *
 * ssh-keygen runs as a child (argv, no shell) in a session of its own (no
 * terminal to prompt on: a key with a passphrase fails instead of
 * hanging), stdin a private temporary file or /dev/null, within a
 * deadline. The key file is never read here and nothing ssh-keygen prints
 * about it is kept beyond its first line of error.
 */
#ifndef GL_SSHSIG_H
#define GL_SSHSIG_H

#include <stddef.h>

#include "util.h"

/* Sign len bytes of data with the private key at key_path (checked with
 * gl_path_trusted first: a regular file of ours, no symbolic link, not
 * writable by others). *sig gets the armored signature, NUL-terminated,
 * ending in a newline; free() it. 0, or an error naming the key path and
 * what ssh-keygen said. */
int gl_sshsig_sign(const char *key_path, const void *data, size_t len, char **sig, struct gl_err *err);

struct gl_sshsig_check {
	int good; /* 1: signed by principal with key */
	char principal[256];
	char key[160]; /* "ED25519 SHA256:..." as ssh-keygen prints it */
	char why[512]; /* good == 0: why not */
};

/* Check the armored signature sig over data against the allowed signers
 * file (trust-checked like the key): the signer's principal is found with
 * `ssh-keygen -Y find-principals`, then `ssh-keygen -Y verify -n git`
 * checks the signature over data. 0 with r filled (good or why not), or an
 * error when ssh-keygen could not be run at all. */
int gl_sshsig_verify(const char *allowed_signers, const void *data, size_t len, const char *sig, size_t sig_len,
		     struct gl_sshsig_check *r, struct gl_err *err);

#endif
