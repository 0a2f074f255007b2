type Props = { title: string };

export function Banner({ title }: Props) {
  return (
    <header className="banner>
      <h1>{title}</h1>
    </header>
  );
}
