export function Form() {
  return (
    <form>
      <input type="text" name="q">
      <button type="submit">Go</button>
    </form>
  );
}
