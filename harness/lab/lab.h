/*
 * lab.h - `gauntlet lab up|down|status`: a small real cluster on one Linux
 * machine (worker network namespaces serving `gauntlet target` replicas, a
 * 3-member etcd, Slurm with munge, a private sshd, a storage directory and
 * its cgroup, mpirun settings) and the inventory file scenarios read.
 * docs/lab.md describes what each part is and which need root.
 */
#ifndef GL_LAB_H
#define GL_LAB_H

/* argv[0] is "lab". Exit: 0 done (up: every part up; status: healthy),
 * 1 some part could not be built or is unhealthy, 2 bad usage, 3 no lab
 * (status), 4 harness error. */
int gl_lab_main(int argc, char **argv);

#endif
