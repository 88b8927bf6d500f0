/*
 * bcryptprimitives.dll for Wine 8: Go 1.26's Windows runtime gets its
 * random bytes from ProcessPrng (bcryptprimitives.dll, Windows 10+),
 * which Wine 8 lacks, so every Go program dies at start under it. This
 * shim exports ProcessPrng over RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. scripts/test-windows builds it with
 * mingw-w64 into the Wine prefix; nothing of bua ships it.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE pbData, SIZE_T cbData) {
  while (cbData > 0) {
    ULONG n = cbData > 0x10000000 ? 0x10000000 : (ULONG)cbData;
    if (!RtlGenRandom(pbData, n)) return FALSE;
    pbData += n;
    cbData -= n;
  }
  return TRUE;
}
