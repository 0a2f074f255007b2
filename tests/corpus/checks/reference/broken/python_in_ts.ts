export function greet(name: string): string {
  return `Hello ${name}`;
}

def shout(name: string):
    return name.upper()
