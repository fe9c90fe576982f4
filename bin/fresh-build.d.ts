export declare const BUILD_STAMP: string;
export declare function isFreshBuild(root: string): boolean;
