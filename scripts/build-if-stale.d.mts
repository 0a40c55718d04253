export declare const BUILD_INPUTS: string[];
export declare const BUILD_OUTPUT: string;
export declare function buildIsStale(root: string): boolean;
export declare function buildIfStale(root: string): void;
