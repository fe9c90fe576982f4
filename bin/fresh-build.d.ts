export declare const BUILD_STAMP: string;
export declare const STALE_NOTICE: string;
export declare function isFreshBuild(root: string): boolean;
export declare function staleBuildNotice(root: string): string | undefined;
