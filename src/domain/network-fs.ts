// The file systems a served data directory may not be on (docs/local.md "Sharing a sandbox"):
// SQLite's locks, which keep two writers apart and a reader off a page being written, are not
// reliable over a network file system (sqlite.org/faq.html#q5, "File Locking And Concurrency"),
// and a database shared that way can be corrupted. Linux's statfs(2) names the file system by a
// magic number (linux/magic.h); these are those coreutils' stat calls remote, the cluster file
// systems on shared disks (GFS2, OCFS2: their locks are cluster-wide) aside. FUSE is among them:
// sshfs, s3fs, rclone, gcsfuse and GlusterFS's client are FUSE, and tpa cannot tell them from a
// local FUSE file system, whose locks are whatever its program makes of them. Pure: the caller
// reads statfs.

/** Network file systems by their statfs magic number (f_type). */
export const NETWORK_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'NFS'],
  [0x517b, 'SMB'],
  [0xff534d42, 'CIFS (SMB)'],
  [0xfe534d42, 'SMB2/3'],
  [0x01021997, '9P (v9fs)'],
  [0x65735546, 'FUSE (sshfs, s3fs, rclone, GlusterFS and others)'],
  [0x00c36400, 'Ceph'],
  [0x5346414f, 'AFS'],
  [0x6b414653, 'AFS (kAFS)'],
  [0x0bd00bd0, 'Lustre'],
  [0x73757245, 'Coda'],
  [0x564c, 'NCP (NetWare)'],
  [0x47504653, 'GPFS (IBM Spectrum Scale)'],
  [0x19830326, 'BeeGFS (FhGFS)'],
  [0x013111a8, 'IBRIX'],
  [0xaad7aaea, 'PanFS'],
  [0xbeefdead, 'StorNext (SNFS)'],
  [0x7c7c6673, 'Parallels shared folder (prl_fs)'],
  [0xbacbacbc, 'VMware shared folder (vmhgfs)'],
]);

/**
 * The network file system a statfs type names, or undefined for any other. Only Linux's numbers
 * mean this (other systems number their file systems otherwise: they are not judged). The type is
 * read as an unsigned 32-bit number: some C libraries give f_type signed.
 */
export function networkFileSystem(type: number | bigint, platform: string): string | undefined {
  if (platform !== 'linux') return undefined;
  return NETWORK_FILE_SYSTEMS.get(Number(BigInt.asUintN(32, BigInt(type))));
}

/** Why `local serve` refuses a data directory on the network file system `name`, and what to do instead. */
export function networkDataDirRefusal(dataDir: string, name: string): { message: string; hint: string } {
  return {
    message: `the data directory ${dataDir} is on a network file system (${name}): SQLite's locks are not safe there, and a database served from it can be corrupted; nothing was served`,
    hint: 'keep the data directory on a local disk of the host that serves it (TPA_HOME), and let everyone else reach that server over HTTPS',
  };
}
