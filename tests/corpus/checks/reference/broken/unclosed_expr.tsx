import { useState } from "react";

export function Toggle() {
  const [on, setOn] = useState<boolean>(false);
  return <button onClick={() => setOn(!on)>{on ? "on" : "off"}</button>;
}
