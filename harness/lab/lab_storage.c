/*
 * lab_storage.c - the lab's storage part: DIR/storage and the blkio (v1) or
 * io (v2) cgroup gauntlet-lab.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- part: storage ------------------------------------------------------------------------ */

void lab_up_storage(struct lab *L)
{
	char d[1100], cg[256] = "", dev[32] = "", why[512] = "";
	struct stat st;
	cJSON *s;

	snprintf(d, sizeof(d), "%s/storage", L->dir);
	if (gl_mkdir_p(d, 0700, NULL) != 0 || stat(d, &st) != 0) {
		lab_part(L, "storage", 0, "cannot make %s: %s", d, strerror(errno));
		return;
	}
	if (major(st.st_dev) == 0) {
		snprintf(why, sizeof(why), "%s is on a filesystem without a block device (%u:%u): no throttle", d,
			 major(st.st_dev), minor(st.st_dev));
	} else {
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	}
	if (!L->root) {
		snprintf(why, sizeof(why), "no cgroup: needs root");
	} else if (dev[0]) {
		char path[512];
		struct stat cs;
		if (stat("/sys/fs/cgroup/blkio", &cs) == 0) {
			snprintf(path, sizeof(path), "/sys/fs/cgroup/blkio/%s", LAB_CGROUP);
		} else if (stat("/sys/fs/cgroup/cgroup.controllers", &cs) == 0) {
			/* v2: the io controller must be enabled for children of the root */
			int fd = open("/sys/fs/cgroup/cgroup.subtree_control", O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "+io", 3) != 3)
				snprintf(why, sizeof(why), "cgroup v2 without the io controller: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", LAB_CGROUP);
		} else {
			snprintf(why, sizeof(why), "no blkio (v1) or io (v2) cgroup interface under /sys/fs/cgroup");
			path[0] = '\0';
		}
		if (path[0] && !why[0]) {
			lab_journal_add(L, "cgroup\t%s", path);
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				snprintf(why, sizeof(why), "mkdir %s: %s", path, strerror(errno));
			else
				snprintf(cg, sizeof(cg), "%s", LAB_CGROUP);
		}
	}
	s = lab_inv_obj(L, "storage");
	cJSON_AddStringToObject(s, "path", d);
	cJSON_AddStringToObject(s, "root", L->dir);
	if (dev[0])
		cJSON_AddStringToObject(s, "device", dev);
	if (cg[0])
		cJSON_AddStringToObject(s, "cgroup", cg);
	if (why[0] && (!cg[0] || !dev[0])) {
		lab_part(L, "storage", 0, "%s ready, but throttling is not: %s", d, why);
		return;
	}
	lab_part(L, "storage", 1, "%s on device %s, cgroup %s", d, dev, cg);
}
