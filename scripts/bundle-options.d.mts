import type { BuildOptions, Metafile } from 'esbuild';
export declare function bundleOptions(entryPoint: string, outfile: string): BuildOptions;
export declare function pipelineBundleOptions(entryPoint: string, outfile: string, version: string): BuildOptions & { metafile: true };
export declare function assertSelfContained(metafile: Metafile): void;
