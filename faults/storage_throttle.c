/*
 * storage_throttle.c - the storage_throttle fault kind: cap the I/O of the
 * cgroup a storage workload runs in, or shape the storage network.
 *
 * method "cgroup" (default):
 *   params: {"cgroup": "gauntlet/storage"  (relative to the cgroup root),
 *            "device": "/dev/vda" | "MAJ:MIN",
 *            "read_bps", "write_bps": sizes like "10MB" (bytes per second),
 *            "read_iops", "write_iops": integers}   (at least one limit)
 *   On the target, v2 is used when /sys/fs/cgroup/cgroup.controllers lists
 *   io (io.max: "MAJ:MIN rbps=N wbps=N riops=N wiops=N"), else v1 when
 *   /sys/fs/cgroup/blkio exists (blkio.throttle.*_device: "MAJ:MIN N"). A
 *   device path is resolved with stat on the target; a partition is
 *   replaced by its disk (throttling works per disk). Revert writes
 *   "MAJ:MIN 0" (v1) or every key as max (v2). The plan names both
 *   interfaces' exact files; detection on the target is a fixed rule, so
 *   revert in a later process picks the interface inject used.
 *
 * method "tc":
 *   params: {"interface": "eth1", "rate": "100mbit"}
 *   inject: tc qdisc replace dev IF root tbf rate R burst 32kbit latency 400ms
 *   revert: tc qdisc del dev IF root, only while a tbf is the root qdisc.
 *
 * Commands run on the target host through gl_host_exec, as argv (scripts
 * get their inputs as positional arguments, never spliced into the text).
 * The plan holds every step's argv, so revert needs nothing but the plan.
 * Every revert is idempotent: a cgroup, device or qdisc that is already
 * gone counts as reverted.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"
#include "plan.h"
#include "plugin.h"
#include "sim_effects.h"

#define ST_STEP_TIMEOUT_MS 30000
#define ST_CGROUP_ROOT "/sys/fs/cgroup"
#define ST_PATH_MAX 200
#define ST_IFNAME_MAX 15

static const char *const st_methods[] = { "cgroup", "tc", NULL };

/* The limits, in the order the script takes them. */
static const struct {
	const char *key, *v2, *v1file;
	int is_size;
} st_limits[] = {
	{ "read_bps", "rbps", "blkio.throttle.read_bps_device", 1 },
	{ "write_bps", "wbps", "blkio.throttle.write_bps_device", 1 },
	{ "read_iops", "riops", "blkio.throttle.read_iops_device", 0 },
	{ "write_iops", "wiops", "blkio.throttle.write_iops_device", 0 },
};

/*
 * cgroup method: $1 step, $2 cgroup root, $3 v2 cgroup dir, $4 v1 cgroup
 * dir, $5 device, $6..$9 rbps wbps riops wiops ("" = not limited).
 */
static const char st_cgroup_script[] =
	"set -f\n"
	"step=$1 root=$2 v2dir=$3 v1dir=$4 dev=$5 rb=$6 wb=$7 ri=$8 wi=$9\n"
	"resolve() {\n"
	"	case $dev in\n"
	"	/*)\n"
	"		[ -b \"$dev\" ] || { echo \"$dev is not a block device\"; return 1; }\n"
	"		x=$(stat -L -c '%t:%T' -- \"$dev\") || { echo \"stat $dev failed\"; return 1; }\n"
	"		case $x in *[!0-9a-f:]*|:*|*:) echo \"stat $dev said '$x'\"; return 1 ;; esac\n"
	"		mj=$((0x${x%%:*})) mn=$((0x${x##*:})) ;;\n"
	"	*) mj=${dev%%:*} mn=${dev##*:} ;;\n"
	"	esac\n"
	"	[ -e \"/sys/dev/block/$mj:$mn\" ] || { echo \"no block device $mj:$mn on this host\"; return 1; }\n"
	"	if [ -e \"/sys/dev/block/$mj:$mn/partition\" ]; then\n"
	"		{ read -r x < \"/sys/dev/block/$mj:$mn/../dev\"; } 2>/dev/null ||\n"
	"			{ echo \"cannot find the disk of partition $mj:$mn\"; return 1; }\n"
	"		mj=${x%%:*} mn=${x##*:}\n"
	"	fi\n"
	"	D=$mj:$mn\n"
	"}\n"
	"detect() {\n"
	"	if [ -r \"$root/cgroup.controllers\" ] && grep -qw io \"$root/cgroup.controllers\"; then\n"
	"		IF=v2 DIR=$v2dir\n"
	"	elif [ -d \"$root/blkio\" ]; then\n"
	"		IF=v1 DIR=$v1dir\n"
	"	else\n"
	"		echo \"neither the cgroup v2 io controller ($root/cgroup.controllers) nor cgroup v1 blkio "
	"($root/blkio) is available\"\n"
	"		return 1\n"
	"	fi\n"
	"}\n"
	"put() { # FILE LINE\n"
	"	e=$( { printf '%s\\n' \"$2\" > \"$1\"; } 2>&1 ) || { echo \"cannot write '$2' to $1: $e\"; return 1; "
	"}\n"
	"}\n"
	"v1get() { # KIND -> V, the limit for D (0: none)\n"
	"	V=0\n"
	"	while read -r k v; do [ \"$k\" = \"$D\" ] && V=$v; done < \"$DIR/blkio.throttle.$1_device\"\n"
	"}\n"
	"v2line() { L=; while read -r k rest; do [ \"$k\" = \"$D\" ] && L=\"$k $rest\"; done < \"$DIR/io.max\"; }\n"
	"v1each() { # FN: call FN KIND VALUE for every limit given\n"
	"	[ -z \"$rb\" ] || $1 read_bps \"$rb\" || return 1\n"
	"	[ -z \"$wb\" ] || $1 write_bps \"$wb\" || return 1\n"
	"	[ -z \"$ri\" ] || $1 read_iops \"$ri\" || return 1\n"
	"	[ -z \"$wi\" ] || $1 write_iops \"$wi\" || return 1\n"
	"}\n"
	"v1set() { put \"$DIR/blkio.throttle.$1_device\" \"$D $2\"; }\n"
	"v1check() { v1get \"$1\"; [ \"$V\" = \"$2\" ] || { echo \"$DIR/blkio.throttle.$1_device has $V for $D, "
	"expected $2\"; return 1; }; }\n"
	"v1zero() { put \"$DIR/blkio.throttle.$1_device\" \"$D 0\"; }\n"
	"v1clear() { v1get \"$1\"; [ \"$V\" = 0 ] || { echo \"$DIR/blkio.throttle.$1_device still has $V for $D\"; "
	"return 1; }; }\n"
	"inject() {\n"
	"	detect && resolve || exit 3\n"
	"	[ -d \"$DIR\" ] || { echo \"cgroup $DIR does not exist\"; exit 3; }\n"
	"	if [ $IF = v2 ]; then\n"
	"		[ -e \"$DIR/io.max\" ] || { echo \"$DIR/io.max is missing: enable the io controller (+io in "
	"the parent's cgroup.subtree_control)\"; exit 3; }\n"
	"		line=$D\n"
	"		[ -z \"$rb\" ] || line=\"$line rbps=$rb\"\n"
	"		[ -z \"$wb\" ] || line=\"$line wbps=$wb\"\n"
	"		[ -z \"$ri\" ] || line=\"$line riops=$ri\"\n"
	"		[ -z \"$wi\" ] || line=\"$line wiops=$wi\"\n"
	"		put \"$DIR/io.max\" \"$line\" || exit 4\n"
	"	else\n"
	"		v1each v1set || exit 4\n"
	"	fi\n"
	"	echo \"$IF $D $DIR\"\n"
	"}\n"
	"verify() {\n"
	"	detect && resolve || exit 3\n"
	"	if [ $IF = v2 ]; then\n"
	"		v2line\n"
	"		[ -n \"$L\" ] || { echo \"$DIR/io.max has no limit for $D\"; exit 1; }\n"
	"		for kv in rbps=$rb wbps=$wb riops=$ri wiops=$wi; do\n"
	"			case $kv in *=) continue ;; esac\n"
	"			case \" $L \" in *\" $kv \"*) ;; *) echo \"$DIR/io.max has '$L', expected $kv\"; exit "
	"1 ;; esac\n"
	"		done\n"
	"	else\n"
	"		v1each v1check || exit 1\n"
	"	fi\n"
	"	echo ok\n"
	"}\n"
	"revert() {\n"
	"	detect || exit 3\n"
	"	resolve >/dev/null || { echo \"device $dev is gone, and its limits with it\"; exit 0; }\n"
	"	[ -d \"$DIR\" ] || { echo \"cgroup $DIR is gone, and its limits with it\"; exit 0; }\n"
	"	if [ $IF = v2 ]; then\n"
	"		[ -e \"$DIR/io.max\" ] || { echo \"no io.max in $DIR: nothing was limited\"; exit 0; }\n"
	"		put \"$DIR/io.max\" \"$D rbps=max wbps=max riops=max wiops=max\" || exit 4\n"
	"	else\n"
	"		v1each v1zero || exit 4\n"
	"	fi\n"
	"	echo ok\n"
	"}\n"
	"verify_revert() {\n"
	"	detect || exit 3\n"
	"	resolve >/dev/null || exit 0\n"
	"	[ -d \"$DIR\" ] || exit 0\n"
	"	if [ $IF = v2 ]; then\n"
	"		[ -e \"$DIR/io.max\" ] || exit 0\n"
	"		v2line\n"
	"		case \" $L \" in *=[0-9]*) echo \"$DIR/io.max still limits $D: $L\"; exit 1 ;; esac\n"
	"	else\n"
	"		v1each v1clear || exit 1\n"
	"	fi\n"
	"	echo ok\n"
	"}\n"
	"case $step in\n"
	"inject|verify|revert|verify_revert) \"$step\" ;;\n"
	"*) echo \"unknown step '$step'\"; exit 2 ;;\n"
	"esac\n";

/* tc method revert: $1 interface. Idempotent: deletes only a tbf root. */
static const char st_tc_revert_script[] =
	"ip link show dev \"$1\" >/dev/null 2>&1 || { echo \"interface $1 is gone, and its qdisc with it\"; exit 0; }\n"
	"out=$(tc qdisc show dev \"$1\" root 2>&1) || { echo \"tc qdisc show dev $1: $out\"; exit 1; }\n"
	"case $out in\n"
	"*'qdisc tbf '*) tc qdisc del dev \"$1\" root ;;\n"
	"*) echo \"no tbf root qdisc on $1\" ;;\n"
	"esac\n";

/* ---- values --------------------------------------------------------------- */

/* tc's rate units (case-insensitive, as tc reads and prints them): bits or
 * bytes per second, SI or IEC prefixes. A unit is required. */
static int parse_rate_bits(const char *s, double *bits)
{
	static const struct {
		const char *u;
		double mult;
	} units[] = {
		{ "bit", 1 },
		{ "kbit", 1e3 },
		{ "mbit", 1e6 },
		{ "gbit", 1e9 },
		{ "tbit", 1e12 },
		{ "kibit", 1024.0 },
		{ "mibit", 1048576.0 },
		{ "gibit", 1073741824.0 },
		{ "tibit", 1099511627776.0 },
		{ "bps", 8 },
		{ "kbps", 8e3 },
		{ "mbps", 8e6 },
		{ "gbps", 8e9 },
		{ "tbps", 8e12 },
		{ "kibps", 8 * 1024.0 },
		{ "mibps", 8 * 1048576.0 },
		{ "gibps", 8 * 1073741824.0 },
		{ "tibps", 8 * 1099511627776.0 },
	};
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)s[0]) || strlen(s) > 32)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v <= 0 || end == s)
		return -1;
	for (size_t i = 0; i < GL_ARRAY_LEN(units); i++)
		if (!strcasecmp(end, units[i].u)) {
			*bits = v * units[i].mult;
			return *bits >= 8 && *bits < 1e15 ? 0 : -1;
		}
	return -1;
}

/* A size ("10MB", or a JSON integer of bytes) or a count (integer or
 * numeric string), > 0. */
static int limit_value(const cJSON *v, int is_size, uint64_t *out)
{
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble < 1 || v->valuedouble > 4e18 || v->valuedouble != floor(v->valuedouble))
			return -1;
		*out = (uint64_t)v->valuedouble;
	} else if (cJSON_IsString(v)) {
		if (is_size) {
			if (gl_parse_size_bytes(v->valuestring, out, NULL) != 0)
				return -1;
		} else {
			char *end;
			if (!isdigit((unsigned char)v->valuestring[0]))
				return -1;
			errno = 0;
			*out = strtoull(v->valuestring, &end, 10);
			if (errno || *end)
				return -1;
		}
	} else {
		return -1;
	}
	if (*out == 0)
		return -1;
	return is_size || *out <= UINT32_MAX ? 0 : -1;
}

static int path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._-@+", c);
}

/* "gauntlet/storage": relative, no empty, "." or ".." components. */
static int valid_cgroup(const char *s)
{
	size_t n = strlen(s);
	const char *c = s;

	if (n == 0 || n > ST_PATH_MAX || s[0] == '/' || s[n - 1] == '/')
		return 0;
	while (*c) {
		size_t len = strcspn(c, "/");
		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		for (size_t i = 0; i < len; i++)
			if (!path_char(c[i]))
				return 0;
		c += len;
		if (*c == '/')
			c++;
	}
	return 1;
}

/* "/dev/vda", "/dev/disk/by-id/x" or "MAJ:MIN" (decimal). */
static int valid_device(const char *s)
{
	if (!strncmp(s, "/dev/", 5)) {
		if (strlen(s) > ST_PATH_MAX || strstr(s, "/../") || strstr(s, "/./") || !s[5])
			return 0;
		for (const char *c = s; *c; c++)
			if (!path_char(*c) && *c != '/' && *c != ':')
				return 0;
		return 1;
	} else {
		unsigned long mj, mn;
		char *end;
		if (!isdigit((unsigned char)s[0]))
			return 0;
		mj = strtoul(s, &end, 10);
		if (*end != ':' || !isdigit((unsigned char)end[1]))
			return 0;
		mn = strtoul(end + 1, &end, 10);
		return !*end && mj < 4096 && mn < (1ul << 20);
	}
}

static int valid_ifname(const char *s)
{
	size_t n = strlen(s);
	/* never an option to tc or ip ("-all"), nor a path */
	if (n == 0 || n > ST_IFNAME_MAX || !strcmp(s, ".") || s[0] == '-' || strstr(s, ".."))
		return 0;
	for (const char *c = s; *c; c++)
		if (!path_char(*c) && *c != ':')
			return 0;
	return 1;
}

/* ---- validation ----------------------------------------------------------- */

static void st_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const cg_keys[] = { "cgroup",    "device",     "read_bps", "write_bps",
					       "read_iops", "write_iops", NULL };
	static const char *const tc_keys[] = { "interface", "rate", NULL };
	int tc = !strcmp(f->method, "tc");
	const char *const *keys = tc ? tc_keys : cg_keys;
	const cJSON *v;
	char p[256];

	if (f->dur_ns <= 0)
		gl_diag_error(d, f->json, path, "kind storage_throttle needs \"for\": how long the throttle holds");
	if (!f->params) {
		gl_diag_error(
			d, f->json, path,
			tc ? "method tc needs params {\"interface\": \"eth1\", \"rate\": \"100mbit\"}"
			   : "kind storage_throttle needs params with \"cgroup\", \"device\" and a limit, e.g. "
			     "{\"cgroup\": \"gauntlet/storage\", \"device\": \"/dev/vda\", \"write_bps\": \"10MB\"}");
		return;
	}
	snprintf(p, sizeof(p), "%s.params", path);
	gl_params_check_keys(f->params, keys, tc ? "storage_throttle method tc" : "storage_throttle method cgroup", d,
			     p);
	if (tc) {
		double bits;
		v = gl_param(f->params, "interface");
		snprintf(p, sizeof(p), "%s.params.interface", path);
		if (!v)
			gl_diag_error(d, f->params, p, "missing: the storage network interface, like \"eth1\"");
		else if (!cJSON_IsString(v) || !valid_ifname(v->valuestring))
			gl_diag_error(d, v, p,
				      "expected an interface name (1 to %d letters, digits and . _ - @ + :, "
				      "not starting with '-', no '..')",
				      ST_IFNAME_MAX);
		v = gl_param(f->params, "rate");
		snprintf(p, sizeof(p), "%s.params.rate", path);
		if (!v)
			gl_diag_error(d, f->params, p, "missing: the rate limit, like \"100mbit\"");
		else if (!cJSON_IsString(v) || parse_rate_bits(v->valuestring, &bits) != 0)
			gl_diag_error(d, v, p,
				      "expected a tc rate with its unit, like \"100mbit\", \"1gbit\" or \"50mbps\" "
				      "(bit, kbit, mbit, gbit, bps, kbps, mbps, gbps, or kibit, mibps...)");
		return;
	}
	v = gl_param(f->params, "cgroup");
	snprintf(p, sizeof(p), "%s.params.cgroup", path);
	if (!v)
		gl_diag_error(
			d, f->params, p,
			"missing: the cgroup the storage workload runs in, relative to %s, like \"gauntlet/storage\"",
			ST_CGROUP_ROOT);
	else if (!cJSON_IsString(v) || !valid_cgroup(v->valuestring))
		gl_diag_error(d, v, p,
			      "expected a cgroup path relative to the cgroup root, like \"gauntlet/storage\" (no "
			      "leading /, no . or .. parts; letters, digits and . _ - @ +)");
	v = gl_param(f->params, "device");
	snprintf(p, sizeof(p), "%s.params.device", path);
	if (!v)
		gl_diag_error(d, f->params, p, "missing: the block device to throttle, like \"/dev/vda\" or \"254:0\"");
	else if (!cJSON_IsString(v) || !valid_device(v->valuestring))
		gl_diag_error(d, v, p,
			      "expected a block device path under /dev/ or MAJ:MIN in decimal, like \"/dev/vda\" or "
			      "\"254:0\"");
	{
		int n_limits = 0;
		for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++) {
			uint64_t x;
			v = gl_param(f->params, st_limits[i].key);
			if (!v)
				continue;
			n_limits++;
			snprintf(p, sizeof(p), "%s.params.%s", path, st_limits[i].key);
			if (limit_value(v, st_limits[i].is_size, &x) != 0)
				gl_diag_error(
					d, v, p,
					st_limits[i].is_size
						? "expected a size per second above 0, like \"10MB\" or \"512KiB\""
						: "expected an integer of I/Os per second from 1 to 4294967295");
		}
		if (!n_limits)
			gl_diag_error(d, f->params, path,
				      "storage_throttle method cgroup needs at least one limit: read_bps, write_bps, "
				      "read_iops or write_iops");
	}
}

/* ---- plan ----------------------------------------------------------------- */

static cJSON *argv_of(const char *const *args)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; a && args[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(args[i]));
	return a;
}

static int plan_cgroup(const struct gl_fault_spec *f, cJSON *p)
{
	const char *cg = gl_param_str(f->params, "cgroup"), *dev = gl_param_str(f->params, "device");
	char v2dir[ST_PATH_MAX + 64], v1dir[ST_PATH_MAX + 64], vals[4][32], file[ST_PATH_MAX + 128];
	const char *args[16];
	cJSON *limits, *v1files;
	static const char *const steps[] = { "inject", "verify", "revert", "verify_revert" };

	if (!cg || !dev)
		return -1;
	snprintf(v2dir, sizeof(v2dir), "%s/%s", ST_CGROUP_ROOT, cg);
	snprintf(v1dir, sizeof(v1dir), "%s/blkio/%s", ST_CGROUP_ROOT, cg);
	cJSON_AddStringToObject(p, "cgroup", cg);
	cJSON_AddStringToObject(p, "device", dev);
	cJSON_AddStringToObject(p, "cgroup_root", ST_CGROUP_ROOT);
	cJSON_AddStringToObject(p, "interface_rule",
				"v2 if " ST_CGROUP_ROOT "/cgroup.controllers lists io, else v1 if " ST_CGROUP_ROOT
				"/blkio exists");
	limits = cJSON_AddObjectToObject(p, "limits");
	snprintf(file, sizeof(file), "%s/io.max", v2dir);
	cJSON_AddStringToObject(p, "v2_file", file);
	v1files = cJSON_AddObjectToObject(p, "v1_files");
	for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++) {
		uint64_t x;
		vals[i][0] = '\0';
		if (limit_value(gl_param(f->params, st_limits[i].key), st_limits[i].is_size, &x) != 0)
			continue;
		snprintf(vals[i], sizeof(vals[i]), "%" PRIu64, x);
		cJSON_AddNumberToObject(limits, st_limits[i].key, (double)x);
		snprintf(file, sizeof(file), "%s/%s", v1dir, st_limits[i].v1file);
		cJSON_AddStringToObject(v1files, st_limits[i].key, file);
	}
	for (size_t s = 0; s < GL_ARRAY_LEN(steps); s++) {
		int n = 0;
		args[n++] = "sh";
		args[n++] = "-c";
		args[n++] = st_cgroup_script;
		args[n++] = "gauntlet-storage_throttle";
		args[n++] = steps[s];
		args[n++] = ST_CGROUP_ROOT;
		args[n++] = v2dir;
		args[n++] = v1dir;
		args[n++] = dev;
		for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++)
			args[n++] = vals[i];
		args[n] = NULL;
		cJSON_AddItemToObject(p, steps[s], argv_of(args));
	}
	return 0;
}

static int plan_tc(const struct gl_fault_spec *f, cJSON *p)
{
	const char *ifname = gl_param_str(f->params, "interface"), *rate = gl_param_str(f->params, "rate");

	if (!ifname || !rate)
		return -1;
	cJSON_AddStringToObject(p, "interface", ifname);
	cJSON_AddStringToObject(p, "rate", rate);
	{
		const char *a[] = { "tc",   "qdisc", "replace", "dev",    ifname,    "root",  "tbf",
				    "rate", rate,    "burst",   "32kbit", "latency", "400ms", NULL };
		cJSON_AddItemToObject(p, "inject", argv_of(a));
	}
	{
		const char *a[] = { "tc", "qdisc", "show", "dev", ifname, "root", NULL };
		cJSON_AddItemToObject(p, "verify", argv_of(a));
		cJSON_AddItemToObject(p, "verify_revert", argv_of(a));
	}
	{
		const char *a[] = { "sh", "-c", st_tc_revert_script, "gauntlet-storage_throttle", ifname, NULL };
		cJSON_AddItemToObject(p, "revert", argv_of(a));
	}
	return 0;
}

static int st_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	const struct gl_host *h = gl_scenario_host(s, f->target);
	int tc = !strcmp(f->method, "tc");
	cJSON *p;

	if (!h)
		return gl_errf(err, GL_EINVAL, "storage_throttle: unknown host '%s'", f->target);
	p = cJSON_CreateObject();
	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	gl_plan_put_host(p, h);
	cJSON_AddStringToObject(p, "method", tc ? "tc" : "cgroup");
	if ((tc ? plan_tc(f, p) : plan_cgroup(f, p)) != 0) {
		cJSON_Delete(p);
		return gl_errf(err, GL_EINVAL, "storage_throttle '%s': params are incomplete (run validate)", f->id);
	}
	if (!cJSON_IsArray(gl_param(p, "verify_revert"))) {
		cJSON_Delete(p);
		return gl_errf(err, GL_ENOMEM, "out of memory");
	}
	*plan = p;
	return 0;
}

/* ---- steps ---------------------------------------------------------------- */

/* Run plan[step] on the plan's host; its output stays in res for the
 * caller (freed with gl_buf_free also on error). A non-zero exit is an
 * error naming the command's first line of output. */
static int run_step(struct gl_ctx *c, const cJSON *plan, const char *step, struct gl_exec_result *res,
		    struct gl_err *err)
{
	const cJSON *argv = gl_param(plan, step), *it;
	const char *args[32];
	struct gl_host host;
	int n = 0, rc;

	memset(res, 0, sizeof(*res));
	if (!cJSON_IsArray(argv))
		return gl_errf(err, GL_EINVAL, "storage_throttle: the plan has no %s command", step);
	cJSON_ArrayForEach(it, argv)
	{
		if (n >= (int)GL_ARRAY_LEN(args) - 1 || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "storage_throttle: bad %s command in the plan", step);
		args[n++] = it->valuestring;
	}
	args[n] = NULL;
	rc = gl_plan_host(c, plan, "storage_throttle", &host, err);
	if (rc)
		return rc;
	rc = gl_host_exec(&host, args, ST_STEP_TIMEOUT_MS, res, err);
	if (rc == 0 && res->exit_status != 0) {
		char out[300] = "";
		if (res->out.data) {
			snprintf(out, sizeof(out), "%s", res->out.data);
			out[strcspn(out, "\n")] = '\0';
		}
		rc = gl_errf(err, GL_EIO, "storage_throttle %s on '%s': %s%s%s (exit %d)", step, host.name, args[0],
			     out[0] ? ": " : "", out, res->exit_status);
	}
	return rc;
}

static int simple_step(struct gl_ctx *c, const cJSON *plan, const char *step, struct gl_err *err)
{
	struct gl_exec_result res;
	int rc = run_step(c, plan, step, &res, err);
	gl_buf_free(&res.out);
	return rc;
}

/* tc: the root qdisc line must (or must not) be our tbf at our rate. */
static int tc_check(struct gl_ctx *c, const cJSON *plan, int want, struct gl_err *err)
{
	struct gl_exec_result res;
	const char *ifname = gl_param_str(plan, "interface"), *rate = gl_param_str(plan, "rate");
	int rc = run_step(c, plan, want ? "verify" : "verify_revert", &res, err);
	const char *out = res.out.data ? res.out.data : "", *r;
	char line[200];

	if (rc)
		goto out;
	snprintf(line, sizeof(line), "%s", out);
	line[strcspn(line, "\n")] = '\0';
	if (!want) {
		if (strstr(out, "qdisc tbf "))
			rc = gl_errf(err, GL_EIO, "storage_throttle: %s still has a tbf root qdisc: %s", ifname, line);
		goto out;
	}
	if (!strstr(out, "qdisc tbf ")) {
		rc = gl_errf(err, GL_EIO, "storage_throttle: the root qdisc of %s is not tbf: %s", ifname, line);
		goto out;
	}
	r = strstr(out, " rate ");
	{
		double want_bits = 0, got_bits = 0;
		char tok[40] = "";
		if (r)
			sscanf(r + 6, "%39s", tok);
		if (parse_rate_bits(rate, &want_bits) != 0 || parse_rate_bits(tok, &got_bits) != 0 ||
		    fabs(got_bits - want_bits) > 0.01 * want_bits)
			rc = gl_errf(err, GL_EIO, "storage_throttle: tbf on %s has rate '%s', expected %s", ifname, tok,
				     rate);
	}
out:
	gl_buf_free(&res.out);
	return rc;
}

static int is_tc(const cJSON *plan)
{
	const char *m = gl_param_str(plan, "method");
	return m && !strcmp(m, "tc");
}

static int st_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return simple_step(c, plan, "inject", err);
}

static int st_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return is_tc(plan) ? tc_check(c, plan, 1, err) : simple_step(c, plan, "verify", err);
}

static int st_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return simple_step(c, plan, "revert", err);
}

static int st_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	return is_tc(plan) ? tc_check(c, plan, 0, err) : simple_step(c, plan, "verify_revert", err);
}

/* ---- dry run -------------------------------------------------------------- */

static void st_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *ns = gl_param_str(plan, "netns");
	const cJSON *limits = gl_param(plan, "limits"), *v1files = gl_param(plan, "v1_files");
	const char *dev = gl_param_str(plan, "device"), *v2 = gl_param_str(plan, "v2_file");
	char line[160] = "D", *d;

	if (ns && ns[0])
		gl_buf_printf(out, "  (every step runs under ip netns exec %s)\n", ns);
	if (is_tc(plan)) {
		const char *ifname = gl_param_str(plan, "interface"), *rate = gl_param_str(plan, "rate");
		if (!ifname || !rate)
			return;
		gl_buf_printf(out, "  inject: tc qdisc replace dev %s root tbf rate %s burst 32kbit latency 400ms\n",
			      ifname, rate);
		gl_buf_printf(out, "  verify: tc qdisc show dev %s root (tbf at rate %s)\n", ifname, rate);
		gl_buf_printf(out, "  revert: tc qdisc del dev %s root (when the root qdisc is a tbf)\n", ifname);
		gl_buf_printf(out, "  verify_revert: tc qdisc show dev %s root (no tbf)\n", ifname);
		return;
	}
	if (!dev || !v2 || !cJSON_IsObject(limits))
		return;
	if (dev[0] == '/')
		gl_buf_printf(out, "  device: D = MAJ:MIN of %s (stat -L -c '%%t:%%T'; its disk if a partition)\n",
			      dev);
	else
		gl_buf_printf(out, "  device: D = %s (its disk if a partition)\n", dev);
	gl_buf_printf(out, "  interface: v2 if " ST_CGROUP_ROOT
			   "/cgroup.controllers lists io, else v1 if " ST_CGROUP_ROOT "/blkio exists\n");
	d = line + 1;
	for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++) {
		const cJSON *v = gl_param(limits, st_limits[i].key);
		if (cJSON_IsNumber(v))
			d += snprintf(d, sizeof(line) - (size_t)(d - line), " %s=%.0f", st_limits[i].v2,
				      v->valuedouble);
	}
	gl_buf_printf(out, "  inject (v2): echo '%s' > %s\n", line, v2);
	for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++) {
		const cJSON *v = gl_param(limits, st_limits[i].key);
		const char *file = gl_param_str(v1files, st_limits[i].key);
		if (cJSON_IsNumber(v) && file)
			gl_buf_printf(out, "  inject (v1): echo 'D %.0f' > %s\n", v->valuedouble, file);
	}
	gl_buf_printf(out, "  verify: read the limits back from the same file(s)\n");
	gl_buf_printf(out, "  revert (v2): echo 'D rbps=max wbps=max riops=max wiops=max' > %s\n", v2);
	for (size_t i = 0; i < GL_ARRAY_LEN(st_limits); i++) {
		const char *file = gl_param_str(v1files, st_limits[i].key);
		if (file)
			gl_buf_printf(out, "  revert (v1): echo 'D 0' > %s\n", file);
	}
	gl_buf_printf(out, "  verify_revert: no limit left for D in those file(s)\n");
}

/* ---- dead-man's switch ---------------------------------------------------- */

/* Both methods' revert is simple_step(plan "revert"): the watcher runs
 * that argv, whichever of the two scripts it holds. */
static int st_deadman(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	return gl_deadman_from_argv(c, plan, "storage_throttle", "revert",
				    is_tc(plan) ? st_tc_revert_script : st_cgroup_script, h, script, err);
}

static const struct gl_fault_ops gl_fault_storage_throttle = {
	.kind = "storage_throttle",
	.methods = st_methods,
	.validate = st_validate,
	.plan = st_plan,
	.inject = st_inject,
	.verify = st_verify,
	.revert = st_revert,
	.verify_revert = st_verify_revert,
	.describe = st_describe,
	.deadman = st_deadman,
	.sim = gl_sim_throttle_io,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_storage_throttle, 40)
