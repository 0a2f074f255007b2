type Callback = (error: Error | null, value: string) => void;

export const run = (cb: Callback): void => {
  cb(null, "ok");
};

export const broken = (value: string): => value.trim();
