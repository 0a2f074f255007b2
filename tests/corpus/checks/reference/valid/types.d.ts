declare module "*.svg" {
  const content: string;
  export default content;
}

declare global {
  interface Window {
    loki?: { version: string };
  }
}

export declare function greet(name: string): string;
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export {};
