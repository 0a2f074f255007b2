const message = 'never closed;
