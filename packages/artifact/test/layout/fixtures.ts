// Layout fixtures: compiled at test time from the committed sources in ./fixtures.
import { fileURLToPath } from 'node:url';
import { compileFixture } from '@rea/test-helpers';

/** Absolute path of a committed fixture source. */
export function source(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

const quiet = ['-w'];

/** x86-64 PIE with a stack protector, full RELRO and a non-executable stack (host gcc + glibc). */
export const elfX64Pie = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'gcc',
    args: [...quiet, '-O1', '-fstack-protector-all', '-fPIE', '-pie', '-Wl,-z,relro,-z,now', '-Wl,-z,noexecstack'],
    output: 'hello-x64-pie',
  });

/** x86-64 non-PIE, no RELRO, executable stack, lazy binding. */
export const elfX64Plain = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'gcc',
    args: [...quiet, '-O1', '-fno-stack-protector', '-no-pie', '-Wl,-z,norelro', '-Wl,-z,execstack', '-Wl,-z,lazy'],
    output: 'hello-x64-plain',
  });

/** x86-64 with IBT-enabled PLT (.plt + .plt.sec), as gcc emits with -fcf-protection. */
export const elfX64Ibt = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'gcc',
    args: [...quiet, '-O1', '-fcf-protection=full', '-Wl,-z,ibtplt', '-Wl,-z,lazy', '-Wl,-z,relro'],
    output: 'hello-x64-ibt',
  });

/** x86-64 with FORTIFY_SOURCE and a stack protector, against the host C library. */
export const elfFortify = (): string =>
  compileFixture({
    source: source('fortify.c'),
    compiler: 'gcc',
    args: ['-O2', '-D_FORTIFY_SOURCE=2', '-fstack-protector-strong'],
    output: 'fortify-x64',
  });

/** x86-64 statically linked (needs the host's static C library). */
export const elfX64Static = (): string =>
  compileFixture({ source: source('fortify.c'), compiler: 'gcc', args: ['-O1', '-static'], output: 'fortify-static' });

/** x86-64 static PIE: ET_DYN with a dynamic section marked DF_1_PIE, and no interpreter. */
export const elfX64StaticPie = (): string =>
  compileFixture({
    source: source('fortify.c'),
    compiler: 'gcc',
    args: ['-O1', '-static-pie'],
    output: 'fortify-static-pie',
  });

/** x86-64 shared library (gcc -shared -fPIC): ET_DYN with neither DF_1_PIE nor DT_DEBUG. */
export const elfX64Shared = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'gcc',
    args: [...quiet, '-O1', '-shared', '-fPIC', '-Wl,-soname,libhello.so.1'],
    output: 'libhello-x64.so',
  });

/** x86-64 shared library with PT_INTERP, an entry point and a SONAME: runnable, as the C library is. */
export const elfX64RunnableShared = (): string =>
  compileFixture({
    source: source('runnable.c'),
    compiler: 'gcc',
    args: [...quiet, '-O1', '-shared', '-fPIC', '-Wl,-soname,librunnable.so.1', '-Wl,-e,start'],
    output: 'librunnable-x64.so',
  });

/** x86-64 PIE and shared library linked by ld.lld (clang -fuse-ld=lld) against the host C library. */
export const elfX64LldPie = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '-O1', '-fuse-ld=lld', '-fPIE', '-pie'],
    output: 'hello-x64-lld-pie',
  });
export const elfX64LldShared = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '-O1', '-fuse-ld=lld', '-shared', '-fPIC'],
    output: 'libhello-x64-lld.so',
  });

/** AArch64 shared object with no SONAME and nothing NEEDED (-shared -nostdlib). */
export const elfAarch64Bare = (): string => crossStub('aarch64-linux-gnu', 'aarch64-linux-gnu-gcc');

/** x86-64 relocatable object. */
export const elfX64Object = (): string =>
  compileFixture({ source: source('hello.c'), compiler: 'gcc', args: [...quiet, '-O1', '-c'], output: 'hello-x64.o' });

function crossStub(target: string, compiler: string, extra: readonly string[] = []): string {
  return compileFixture({
    source: source('stub.c'),
    compiler,
    args: [
      ...quiet,
      ...(compiler === 'clang' ? [`--target=${target}`] : []),
      '-shared',
      '-fPIC',
      '-nostdlib',
      ...extra,
    ],
    output: `libstub-${target}.so`,
  });
}

/** AArch64 PIE linked by GNU ld against a stand-in C library (no target libc is installed). */
export const elfAarch64 = (): string =>
  compileFixture({
    source: [source('hello.c'), crossStub('aarch64-linux-gnu', 'aarch64-linux-gnu-gcc')],
    compiler: 'aarch64-linux-gnu-gcc',
    args: [
      ...quiet,
      '-O1',
      '-fPIE',
      '-pie',
      '-nostdlib',
      '-Wl,-e,main',
      '-Wl,--dynamic-linker=/lib/ld-linux-aarch64.so.1',
    ],
    output: 'hello-aarch64',
  });

/** i386 object (clang; no 32-bit C library is needed for -c). */
export const elfI386Object = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=i386-linux-gnu', '-O1', '-c'],
    output: 'hello-i386.o',
  });

/** i386 executable linked by ld.lld against a stand-in C library: absolute `jmp *slot` PLT. */
export const elfI386Exec = (): string =>
  compileFixture({
    source: [elfI386Object(), crossStub('i386-linux-gnu', 'clang', ['-fuse-ld=lld'])],
    compiler: 'ld.lld',
    args: ['-e', 'main', '-dynamic-linker', '/lib/ld-linux.so.2'],
    output: 'hello-i386',
  });

/** Big-endian 32-bit PowerPC shared object (clang + ld.lld). */
export const elfPpcShared = (): string => {
  const object = compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=powerpc-linux-gnu', '-fPIC', '-O1', '-c'],
    output: 'hello-ppc.o',
  });
  return compileFixture({ source: object, compiler: 'ld.lld', args: ['-shared'], output: 'libhello-ppc.so' });
};

/** Big-endian 64-bit PowerPC object, and big-endian 32-bit MIPS object. */
export const elfPpc64Object = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=powerpc64-linux-gnu', '-O1', '-c'],
    output: 'hello-ppc64.o',
  });
export const elfMipsObject = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=mips-linux-gnu', '-O1', '-c'],
    output: 'hello-mips.o',
  });

/** PE32+ executable and DLL from mingw-w64 (COFF symbol table kept). */
export const peX64Exe = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'x86_64-w64-mingw32-gcc',
    args: [...quiet, '-O1'],
    output: 'hello-x64.exe',
  });
export const peX64Dll = (): string =>
  compileFixture({
    source: source('hello.c'),
    compiler: 'x86_64-w64-mingw32-gcc',
    args: [...quiet, '-O1', '-shared'],
    output: 'hello-x64.dll',
  });

/** PE32+ DLL whose .def file exports by ordinal only (NONAME) and forwards two exports to msvcrt. */
export const peX64OrdinalDll = (): string =>
  compileFixture({
    source: [source('ordinals.c'), source('ordinals.def')],
    compiler: 'x86_64-w64-mingw32-gcc',
    args: [...quiet, '-O1', '-shared'],
    output: 'ordinals-x64.dll',
  });

/** PE32 (i386) executable: clang objects, an import library from msvcrt.def, lld-link with /guard:cf. */
export const peI386Exe = (): string => {
  const object = compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=i686-pc-windows-msvc', '-O1', '-c'],
    output: 'hello-i386.obj',
  });
  const library = compileFixture({
    source: source('msvcrt.def'),
    compiler: 'llvm-dlltool',
    args: ['-m', 'i386', '-d'],
    output: 'msvcrt-i386.lib',
    outputFlag: '-l',
  });
  return compileFixture({
    source: [object, library],
    compiler: 'lld-link',
    args: ['/entry:main', '/subsystem:console', '/nodefaultlib', '/guard:cf'],
    output: 'hello-i386.exe',
    outputFlag: '/out:',
  });
};

const MACHO_LINKER = 'ld64.lld-14';

function machoObject(target: string, extra: readonly string[] = []): string {
  return compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '-target', target, '-O1', ...extra, '-c'],
    output: `hello-${target}.o`,
  });
}

/** Mach-O executables linked by ld64.lld against a text stub of libSystem (no macOS SDK is needed). */
export const machoX64 = (): string =>
  compileFixture({
    source: [machoObject('x86_64-apple-macos11'), source('libSystem.tbd')],
    compiler: MACHO_LINKER,
    args: ['-arch', 'x86_64', '-platform_version', 'macos', '11.0', '11.0'],
    output: 'hello-macho-x86_64',
  });
export const machoArm64 = (): string =>
  compileFixture({
    source: [machoObject('arm64-apple-macos11', ['-fstack-protector-all']), source('libSystem.tbd')],
    compiler: MACHO_LINKER,
    args: ['-arch', 'arm64', '-platform_version', 'macos', '11.0', '11.0'],
    output: 'hello-macho-arm64',
  });

/** A Mach-O dylib with an install name and an rpath. */
export const machoDylib = (): string =>
  compileFixture({
    source: [machoObject('x86_64-apple-macos11'), source('libSystem.tbd')],
    compiler: MACHO_LINKER,
    args: [
      '-arch',
      'x86_64',
      '-platform_version',
      'macos',
      '11.0',
      '11.0',
      '-dylib',
      '-install_name',
      '@rpath/libhello.dylib',
      '-rpath',
      '@loader_path/../lib',
    ],
    output: 'libhello.dylib',
  });

/** A universal binary holding the x86_64 and arm64 executables. */
export const machoFat = (): string =>
  compileFixture({
    source: [machoX64(), machoArm64()],
    compiler: 'llvm-lipo-14',
    args: ['-create'],
    output: 'hello-universal',
    outputFlag: '-output',
  });

/** A 32-bit i386 Mach-O object. */
export const machoI386Object = (): string => machoObject('i386-apple-macos10.13');

/** 32-bit ARM (A32) shared object linked by ld.lld. */
export const elfArmShared = (): string => {
  const object = compileFixture({
    source: source('hello.c'),
    compiler: 'clang',
    args: [...quiet, '--target=arm-linux-gnueabihf', '-marm', '-fPIC', '-O1', '-c'],
    output: 'hello-arm.o',
  });
  return compileFixture({ source: object, compiler: 'ld.lld', args: ['-shared'], output: 'libhello-arm.so' });
};
