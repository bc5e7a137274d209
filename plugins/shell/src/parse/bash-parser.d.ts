// bash-parser 0.5.0 ships no types: just what fullParse.ts reads.
declare module 'bash-parser' {
  export interface BpLoc {
    start: { char: number };
    end: { char: number };
  }
  export interface BpNode {
    type: string;
    text?: string;
    loc?: BpLoc;
    async?: boolean;
    bang?: boolean;
    op?: BpNode | string;
    name?: BpNode;
    prefix?: BpNode[];
    suffix?: BpNode[];
    numberIo?: BpNode;
    file?: BpNode;
    commands?: BpNode[];
    redirections?: BpNode[];
    list?: BpNode;
    left?: BpNode;
    right?: BpNode;
    clause?: BpNode;
    then?: BpNode;
    else?: BpNode;
    do?: BpNode;
    wordlist?: BpNode[];
    cases?: BpNode[];
    pattern?: BpNode[];
    body?: BpNode;
  }
  export default function parse(source: string, options?: { mode?: string; insertLOC?: boolean }): BpNode;
}
