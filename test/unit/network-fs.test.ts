// The file systems a served data directory may not be on (src/domain/network-fs.ts): Linux's statfs
// magic numbers, read unsigned, judged on Linux only.
import { describe, expect, it } from 'vitest';
import { NETWORK_FILE_SYSTEMS, networkDataDirRefusal, networkFileSystem } from '../../src/domain/network-fs.js';

describe('network file systems by their statfs type', () => {
  it('NFS, SMB, CIFS, SMB2, 9P, FUSE, Ceph, AFS, Lustre, Coda and NCP are network file systems on Linux', () => {
    const named = (type: number) => networkFileSystem(type, 'linux');
    expect(named(0x6969)).toBe('NFS');
    expect(named(0x517b)).toBe('SMB');
    expect(named(0xff534d42)).toBe('CIFS (SMB)');
    expect(named(0xfe534d42)).toBe('SMB2/3');
    expect(named(0x01021997)).toBe('9P (v9fs)');
    expect(named(0x65735546)).toMatch(/^FUSE \(sshfs/);
    expect(named(0x00c36400)).toBe('Ceph');
    expect(named(0x5346414f)).toBe('AFS');
    expect(named(0x0bd00bd0)).toBe('Lustre');
    expect(named(0x73757245)).toBe('Coda');
    expect(named(0x564c)).toBe('NCP (NetWare)');
  });

  it('local file systems are not: ext4, XFS, Btrfs, tmpfs, overlayfs, ZFS', () => {
    for (const local of [0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1]) expect(networkFileSystem(local, 'linux')).toBeUndefined();
  });

  it('a type given signed (a C library with a signed f_type) is read unsigned: CIFS as -0x00acb2be is CIFS', () => {
    expect(networkFileSystem(0xff534d42 - 2 ** 32, 'linux')).toBe('CIFS (SMB)');
    expect(networkFileSystem(BigInt(0xfe534d42), 'linux')).toBe('SMB2/3');
  });

  it('other systems number their file systems otherwise: nothing is judged off Linux', () => {
    expect(networkFileSystem(0x6969, 'darwin')).toBeUndefined();
    expect(networkFileSystem(0x6969, 'win32')).toBeUndefined();
  });

  it('every entry is a distinct 32-bit number with a name', () => {
    for (const [type, name] of NETWORK_FILE_SYSTEMS) {
      expect(type >>> 0).toBe(type);
      expect(name.length).toBeGreaterThan(1);
    }
  });

  it('the refusal names the data directory and the file system, and says what to do instead', () => {
    const r = networkDataDirRefusal('/mnt/team/tpa', 'NFS');
    expect(r.message).toContain('/mnt/team/tpa');
    expect(r.message).toContain('(NFS)');
    expect(r.message).toContain('nothing was served');
    expect(r.hint).toMatch(/local disk.*HTTPS/);
  });
});
