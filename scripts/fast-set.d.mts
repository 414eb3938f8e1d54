// The types of scripts/fast-set.mjs, for the test that checks it.
export declare const FAST_FOLDERS: string[];
export declare const PROCESS_HELPERS: Record<string, string[]>;
export declare const PROCESS_PACKAGES: string[];
export declare function startsProcess(source: string, file?: string, root?: string): string | undefined;
export declare function classified(root?: string): { file: string; process: string | undefined }[];
export declare function fastFiles(root?: string): string[];
