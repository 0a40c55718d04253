/** Types of scripts/build-web.mjs for the TypeScript tests that build the console. */
export declare const WEB_OUT: string;
export declare function buildWeb(outDir?: string): Promise<string[]>;
