import type { BuildOptions } from 'esbuild';
export declare function bundleOptions(entryPoint: string, outfile: string): BuildOptions;
